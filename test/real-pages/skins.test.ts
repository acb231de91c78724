/**
 * The simulator's skins held to the real pages (issue 18 §1): for each capture, the layout
 * that reproduces it, after one answer, must be found by the same cue as the real page for
 * every role the flow acts on. A skin whose markup drifts from the site's fails here, so the
 * simulated sites cannot prove the packs on markup the real sites do not have.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PROVIDER_SITES } from '../../agents/providers/index.js';
import { PAGE_HELPERS_SCRIPT } from '../../agents/providers/page-helpers.js';
import type { TurnScope } from '../../agents/providers/page-helpers/types.js';
import type { PagePack } from '../../agents/providers/site.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { openSimPage, typeAndSend } from '../support/sim-page.js';
import { CAPTURES, describeWithCaptures, findRoles, openCapture } from './captures.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

describeWithCaptures('the simulated sites, against the real pages', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await takeTestBrowser();
  });
  afterAll(async () => giveBackTestBrowser(browser));

  for (const capture of CAPTURES) {
    it(`${capture.provider} layout ${capture.layout} is found as ${capture.file} is`, async () => {
      expect(SIM_SITES[capture.provider].layouts).toContain(capture.layout);
      const site = PROVIDER_SITES[capture.provider];
      const args: [PagePack, TurnScope] = [site.page, site.turnScope];

      const real = await openCapture(browser, capture);
      const onReal = await real.page.evaluate(findRoles, args).finally(() => real.close());

      const sim = await openSimPage(browser, capture.provider, { look: { layout: capture.layout }, initScript: PAGE_HELPERS_SCRIPT });
      try {
        await sim.page.evaluate((p) => window.__chatbridge!.markTurns(p), site.page);
        const composer = await sim.page.evaluateHandle((p) => window.__chatbridge!.find(p.composer), site.page);
        await composer.asElement()!.click();
        await composer.dispose();
        await typeAndSend(sim, ':focus', 'Hello [[sim:ms=50]]');
        const outcome = await sim.page.evaluate(
          ([p, scope]) => window.__chatbridge!.watchTurn(p, scope, { appearMs: 10_000, appearWorkingMs: 10_000, settleMs: 3_000, lostSignalMs: 3_000 }, false, null),
          args,
        );
        expect(outcome).toMatchObject({ kind: 'finished', by: 'marker' });
        const onSkin = await sim.page.evaluate(findRoles, args);
        // The composer of a page without one, or a role the real page does not show, holds the skin to nothing.
        const shown = Object.fromEntries(Object.entries(onReal).filter(([, index]) => index >= 0));
        expect(Object.fromEntries(Object.keys(shown).map((role) => [role, onSkin[role as keyof typeof onSkin]]))).toEqual(shown);
      } finally {
        await sim.close();
      }
    });
  }
});
