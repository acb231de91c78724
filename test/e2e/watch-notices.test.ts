/**
 * The answer's watch and the page's own notices (page-helpers/watch.ts): a notice comes before
 * any end the turn shows, and is seen some 200 ms after it came at most, even when nothing
 * changes after it; while the answer is written, the notices (the costliest look) are not
 * looked for at every change. Real Chromium, markup the test sets, a pack of its own.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PagePack } from '../../agents/providers/site.js';
import type { Helpers, TurnOutcome } from '../../agents/providers/page-helpers/types.js';
import { openHelpersPage } from '../support/helpers-page.js';

const PACK: PagePack = {
  assistantTurn: [{ kind: 'class', css: '.turn' }],
  composer: [{ kind: 'structure', css: 'textarea' }],
  stop: [{ kind: 'testid', css: '#stop' }],
  finished: [{ kind: 'class', css: '.turn.done' }],
  limitBanner: [{ kind: 'text', css: '[role="alert"]', text: ['usage limit reached', 'i'] }],
};

/** Long enough that no wait of the watch passes within a test. */
const LIMITS = { appearMs: 60_000, appearWorkingMs: 60_000, settleMs: 60_000, lostSignalMs: 60_000 };

/** The page's window with the test's watch: what it ended on (null until then), how often it looked for the notices, the new turn, when it began. */
type Watched = { watched: { outcome: TurnOutcome | null; blockerLooks: number; turn: Element; startedAt: number } };

describe("the answer's watch and the page's notices", () => {
  let close = async () => {};
  let page: Page;
  beforeAll(async () => {
    ({ page, close } = await openHelpersPage());
  });
  afterAll(() => close());

  /** A page of its own (no earlier test's watch in it) with an old answer, a new one being written (Stop shown), and its watch begun. */
  beforeEach(async () => {
    await page.goto('about:blank');
    await page.evaluate(
      ([pack, limits]) => {
        document.body.innerHTML = '<main><div class="turn done">An earlier answer.</div></main><textarea></textarea><button id="stop">Stop</button>';
        const h = window.__chatbridge as Helpers;
        h.markTurns(pack);
        const turn = document.createElement('div');
        turn.className = 'turn';
        turn.textContent = 'The answer begins';
        document.querySelector('main')!.append(turn);
        const watched = { outcome: null as TurnOutcome | null, blockerLooks: 0, turn, startedAt: performance.now() };
        (window as unknown as Watched).watched = watched;
        const blocker = h.blocker;
        // Counted where the watch reaches it: the helpers' shared object.
        h.blocker = (p) => {
          watched.blockerLooks++;
          return blocker(p);
        };
        void h.watchTurn(pack, [], limits, false, null).then((o) => (watched.outcome = o));
      },
      [PACK, LIMITS] as const,
    );
  });

  /** Adds a word to the answer every `everyMs`, `words` times. */
  const write = (words: number, everyMs: number) =>
    page.evaluate(
      async ([n, every]) => {
        for (let i = 0; i < n; i++) {
          await new Promise((next) => setTimeout(next, every));
          (window as unknown as Watched).watched.turn.append(` word${i}`);
        }
      },
      [words, everyMs] as const,
    );

  const outcome = () => page.evaluate(() => (window as unknown as Watched).watched.outcome);

  it('looks for the notices at most every 200 ms while the answer is written, not at each change', async () => {
    await write(30, 10);
    const { looks, since } = await page.evaluate(() => {
      const { watched } = window as unknown as Watched;
      return { looks: watched.blockerLooks, since: performance.now() - watched.startedAt };
    });
    // One as the watch began, then one per 200 ms at most; at each of the 30 changes, without the wait.
    expect(looks).toBeLessThanOrEqual(Math.floor(since / 200) + 1);
    expect(await outcome()).toBeNull();
  });

  it('sees a limit notice that comes while the answer is written, though nothing changes after it: by its own timer, 200 ms after its last look', async () => {
    await write(10, 10);
    const shown = await page.evaluate(() => {
      document.body.insertAdjacentHTML('beforeend', '<div role="alert">Usage limit reached. Try again at 5 PM.</div>');
      return performance.now();
    });
    await expect.poll(outcome, { timeout: 2_000, interval: 20 }).toMatchObject({ kind: 'limitBanner' });
    // Within a second on a loaded machine; without the timer, not before the answer's limits (a minute).
    expect(await page.evaluate((at) => performance.now() - at, shown)).toBeLessThan(1_000);
  });

  it('takes a notice that comes with the end of the answer for the notice, not for a finished answer, however soon after its last look', async () => {
    await page.evaluate(async () => {
      const { watched } = window as unknown as Watched;
      // Words until the watch has just looked for the notices: the end comes well within 200 ms of that look.
      const looks = watched.blockerLooks;
      for (let i = 0; watched.blockerLooks === looks; i++) {
        await new Promise((next) => setTimeout(next, 10));
        watched.turn.append(` word${i}`);
      }
      await new Promise((next) => setTimeout(next, 10));
      document.body.insertAdjacentHTML('beforeend', '<div role="alert">Usage limit reached. Try again at 5 PM.</div>');
      watched.turn.classList.add('done');
      document.getElementById('stop')!.remove();
    });
    await expect.poll(outcome, { timeout: 2_000, interval: 20 }).toMatchObject({ kind: 'limitBanner' });
  });
});
