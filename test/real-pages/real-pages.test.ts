/**
 * The built-in packs against real pages of the live sites (issue 18 §1): each capture in
 * ../shared/real-pages, loaded under its site's origin with the page helpers, looked at
 * exactly as the flow looks (flow.ts: the last turn, its answer, finished signal and Copy in
 * the turn's scope; the person's turns; the page's blockers), so a pack that misses on the
 * real markup fails here.
 * Each capture is also read as a release that renamed its test ids and hashed its classes at
 * once would serve it (rebuildPage): the roles the flow acts on are still found.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PROVIDER_SITES } from '../../agents/providers/index.js';
import type { Helpers, TurnScope } from '../../agents/providers/page-helpers/types.js';
import type { PagePack } from '../../agents/providers/site.js';
import { survivesRenames } from '../support/cue-rules.js';
import { captureFiles, CAPTURES, describeWithCaptures, openCapture, rebuildPage } from './captures.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

describeWithCaptures('the real captured pages', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await takeTestBrowser();
  });
  afterAll(async () => giveBackTestBrowser(browser));

  it('are each described in CAPTURES', () => {
    expect(captureFiles()).toEqual(CAPTURES.map((c) => c.file).sort());
  });

  for (const capture of CAPTURES) {
    for (const rebuilt of [false, true]) {
      it(`${capture.file}${rebuilt ? ', test ids renamed and classes hashed at once' : ''}: the pack finds what the flow needs`, async () => {
        const site = PROVIDER_SITES[capture.provider];
        const { page, close } = await openCapture(browser, capture);
        try {
          if (rebuilt) await page.evaluate(rebuildPage);
          const seen = await page.evaluate(
            ([p, scope]) => {
              const h = window.__chatbridge as Helpers;
              const turns = h.turns(p);
              const last = turns.at(-1) ?? null;
              const answer = last ? h.answerParts(p, last) : [];
              // Each turn's own finished signal and Copy, as the flow would find them were it the new one.
              const perTurn = turns.map((t) => {
                const root = h.scopeOf(p, t, scope);
                return { finished: h.inScope(t, p.finished, root), copy: h.inScope(t, p.copy, root) };
              });
              const copies = perTurn.map((t) => t.copy).filter((c) => c !== null);
              return {
                composer: h.find(p.composer) !== null,
                turns: turns.length,
                userTurns: h.userTurns(p).length,
                answerFound: answer.length > 0,
                markdown: last ? h.answerMarkdown(p, last) : '',
                finished: h.inTurn(p, 'finished', scope, true) !== null,
                copy: h.inTurn(p, 'copy', scope, true) !== null,
                // A turn's scope that reached into another turn would hand it that turn's Copy.
                copyInTurnOrder: copies.every((c, i) => i === 0 || copies[i - 1]!.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING),
                copiesDistinct: new Set(copies).size === copies.length,
                turnsFinished: perTurn.filter((t) => t.finished !== null).length,
                turnsWithCopy: copies.length,
                stop: h.find(p.stop) !== null,
                blocker: h.blocker(p)?.kind ?? null,
              };
            },
            [site.page, site.turnScope] as [PagePack, TurnScope],
          );
          expect(seen.composer, 'composer').toBe(capture.composer);
          expect(seen.turns, 'assistant turns').toBe(capture.turns);
          // A rebuild leaves a page that tells the person's messages by classes alone (the pack-cue rule's exception) none to tell them by.
          if (!rebuilt || site.roles.userTurn!.some(survivesRenames)) expect(seen.userTurns, "the person's turns").toBe(capture.userTurns);
          expect(seen.answerFound, 'the answer within the last turn').toBe(true);
          expect(seen.markdown.trim(), 'the answer as Markdown').not.toBe('');
          // KaTeX writes a formula twice (MathML for readers, a drawing beside it): read once, as
          // TeX, alone on its line as it stands alone in its paragraph.
          if (capture.formula) {
            const lines = seen.markdown.split('\n').map((line) => line.trim());
            expect(lines.filter((line) => line.includes(capture.formula!)), 'the formula').toEqual([capture.formula]);
          }
          if (!rebuilt) expect(seen.blocker, 'blocker').toBe(capture.loggedOut ? 'loginWall' : null);
          expect(seen.stop, 'stop control').toBe(capture.streaming);
          expect(seen.finished, "the last turn's finished signal").toBe(!capture.streaming);
          expect(seen.copy, "the last turn's Copy").toBe(!capture.streaming);
          const done = capture.turns - (capture.streaming ? 1 : 0);
          expect(seen.turnsFinished, 'turns showing their finished signal').toBe(done);
          expect(seen.turnsWithCopy, 'turns with their own Copy').toBe(done);
          expect(seen.copiesDistinct && seen.copyInTurnOrder, "each turn's Copy its own").toBe(true);
        } finally {
          await close();
        }
      });
    }
  }
});
