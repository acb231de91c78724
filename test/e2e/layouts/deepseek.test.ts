/**
 * DeepSeek's 2026 layouts (research/providers-live-2026.md, "DeepSeek"): what the
 * simulated pages render, used as a person would; then ChatBridge driving them.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import { simulatedAnswer } from '../../../agents/simulator/answer.js';
import { SIM_SITES } from '../../../agents/simulator/site-config.js';
import { startE2E, type E2E } from '../../support/e2e.js';
import { openSimPage, type SimPage } from '../../support/sim-page.js';
import { until } from '../../support/until.js';
import { watchFirstSight } from '../../support/first-sight.js';
import { providerSuite } from '../provider-suite.js';
import { describeBeside, inOrder } from '../../support/beside.js';
import { giveBackTestBrowser, takeTestBrowser } from '../../support/test-browser.js';

const COMPOSER = 'textarea[placeholder="Message DeepSeek"]';
const SLOT = '.ds-button--primary.ds-button--circle';
const ROWS = '.ds-virtual-list .ds-virtual-list-items > .ds-virtual-list-visible-items > *';

describeBeside('simulated DeepSeek pages', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await takeTestBrowser();
  });
  afterAll(async () => giveBackTestBrowser(browser));

  /** Types a prompt (React hears real typing only) and clicks the slot; waits for the site to get it. */
  const send = async (sp: SimPage, prompt: string) => {
    const before = sp.sim.log.sends.length;
    await sp.page.fill(COMPOSER, prompt);
    await sp.page.click(SLOT);
    await until(() => sp.sim.log.sends.length > before, 15_000, 'the send');
  };
  /** Sends `count` prompts in one conversation, each once the previous answer's toolbar showed. */
  const converse = async (sp: SimPage, count: number) => {
    for (let i = 1; i <= count; i++) {
      await send(sp, `Prompt ${i} [[sim:ms=100]]`);
      await until(() => sp.sim.log.finishes.length === i, 15_000, `answer ${i}`);
    }
  };

  it('virtual-list: keyed rows, signed per exchange, only the newest four mounted; Read aloud under finished answers', async ({ expect }) => {
    const sp = await openSimPage(browser, 'deepseek', { look: { layout: 'virtual-list' } });
    try {
      await converse(sp, 3);
      const rows = await sp.page.$$eval(ROWS, (all) =>
        all.map((r) => [
          r.getAttribute('data-virtual-list-item-key'),
          !!r.querySelector(':scope > .ds-message'),
          !!r.querySelector('.ds-assistant-message-main-content'),
          r.querySelectorAll('[role="button"][aria-label="Read aloud"]').length,
        ]),
      );
      expect(rows).toEqual([
        ['-4', true, false, 0],
        ['4', true, true, 1],
        ['-6', true, false, 0],
        ['6', true, true, 1],
      ]);
      // The toolbar: copy first, labelled.
      expect(await sp.page.$$eval('[data-virtual-list-item-key="6"] .ds-flex > [role="button"]', (all) => all.map((b) => b.getAttribute('aria-label')))).toEqual([
        'Copy',
        'Regenerate',
        'Read aloud',
        'Like',
        'Dislike',
        'Share',
      ]);
    } finally {
      await sp.close();
    }
  });

  it('virtual-list-hashed: unkeyed rows without .ds-message, hashed classes only', async ({ expect }) => {
    const sp = await openSimPage(browser, 'deepseek', { look: { layout: 'virtual-list-hashed' } });
    try {
      await converse(sp, 2);
      const classes = await sp.page.$$eval(ROWS, (all) => all.map((r) => [r.className, r.firstElementChild!.className]));
      expect(classes).toHaveLength(4);
      for (const names of classes.flat()) expect(names).toMatch(/^(_?[0-9a-f]{7,8})( _?[0-9a-f]{7,8})*$/);
      expect(await sp.page.locator('[data-virtual-list-item-key], .ds-message, .ds-assistant-message-main-content').count()).toBe(0);
      // The answer text is still `.ds-markdown` beside the reasoning's.
      expect(await sp.page.locator(`${ROWS} > * > .ds-markdown`).count()).toBe(2);
      expect(await sp.page.locator(`${ROWS} [role="button"][aria-label="Read aloud"]`).count()).toBe(2);
    } finally {
      await sp.close();
    }
  });

  it('classic: the message blocks before the virtual list', async ({ expect }) => {
    const sp = await openSimPage(browser, 'deepseek', { look: { layout: 'classic' } });
    try {
      await converse(sp, 3);
      expect(await sp.page.locator('.ds-virtual-list, [data-virtual-list-item-key], [aria-label="Read aloud"]').count()).toBe(0);
      expect(await sp.page.locator('div.ds-message').count()).toBe(6);
    } finally {
      await sp.close();
    }
  });

  it('virtual-list: the slot is send (path M8.3125), then loading until the first words, then stop (path M2 4.88)', async ({ expect }) => {
    const sp = await openSimPage(browser, 'deepseek', { look: { layout: 'virtual-list' } });
    try {
      // The first words are held back (a long think first) and the answer streams slowly, so
      // each glyph stays long enough to be seen on a busy machine: the first words of a plain
      // answer come a quarter of a second after the send, and a look could miss the loading.
      await sp.page.fill(COMPOSER, 'Slow [[sim:think-first=1500]] [[sim:ms=30000]]');
      await sp.page.locator(`${SLOT}:not(.ds-button--disabled) path[d^="M8.3125"]`).waitFor();
      const ANSWER = '.ds-markdown:not(.ds-think-content .ds-markdown)';
      const loading = await watchFirstSight(sp.page, `${SLOT} .ds-loading`, [ANSWER]);
      await sp.page.click(SLOT);
      expect(await loading()).toMatchObject({ counts: { [ANSWER]: 0 } });
      await sp.page.locator(`${SLOT} path[d^="M2 4.88"]`).waitFor();
      expect(await sp.page.locator(`${SLOT} :is(.ds-loading, rect)`).count()).toBe(0);
      await sp.page.click(SLOT);
      await until(() => sp.sim.log.stops.length === 1, 15_000, 'the stop');
      await sp.page.locator(`${SLOT}.ds-button--disabled path[d^="M8.3125"]`).waitFor();
    } finally {
      await sp.close();
    }
  });
});

for (const layout of SIM_SITES.deepseek.layouts.slice(1)) providerSuite('deepseek', { layout }, 'core');

for (const layout of ['virtual-list', 'virtual-list-hashed']) {
  describeBeside(`ChatBridge on DeepSeek's virtual list (${layout})`, () => {
    let e: E2E;
    beforeAll(async () => {
      e = await startE2E('deepseek', 1, { layout });
    }, 60_000);
    afterAll(async () => e?.stop());

    const ask = (body: Record<string, unknown>) => e.api('POST', '/v1/completions', { body: { provider: 'deepseek', ...body } });

    // Unkeyed, the list renders its rows anew each exchange: the old answers, new elements, are known by their words.
    inOrder('continues a conversation whose first rows the list has unmounted (or rendered anew), each answer the right one', async ({ expect }) => {
      const first = await ask({ prompt: 'Virtual 1' });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      for (let turn = 2; turn <= 4; turn++) {
        const r = await ask({ prompt: `Virtual ${turn}`, mode: 'continue', conversation_ref: first.body.conversation_ref });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.body.response).toBe(simulatedAnswer('DeepSeek', 'deepseek', `Virtual ${turn}`, turn));
      }
      // The list held the newest four rows of eight, the first exchanges gone.
      const page = await e.browserAgents[0]!.page()!.context().newPage();
      await page.goto((await e.driver.conversation(first.body.conversation_ref))!.address);
      const rows = page.locator('.ds-virtual-list-visible-items > *');
      expect(await rows.count()).toBe(4);
      expect(await rows.first().textContent()).toContain('Virtual 3');
      await page.close();
    });
  });
}
