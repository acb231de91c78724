/**
 * What the page helpers' costliest looks cost in the live sites' real pages: the captured
 * pages of ../shared/real-pages (test/real-pages/captures.ts; a clone without them says so in
 * one line and measures nothing), each opened in Chromium as the real-pages tests open it.
 *
 * - The blockers (a challenge, a lock, a login wall, a limit banner: page-helpers/obstacles.ts
 *   `blocker`). The answer's watch looks for them at each change of the page while an answer
 *   is written, and every look at what stands in the way starts with them. Their cues read the
 *   words of the whole page, and they are the costliest look of all.
 * - The look the watch settles with once an answer is done (`finishedLook`, the blockers
 *   already looked for in the same call), beside the same look when it looks for them too,
 *   as `inTheWay` does for Send's look: the difference is one look at the blockers.
 * - The watch's look at each change of the page while an answer is written: the page's last
 *   answer watched as a new one, with no finished signal known and no wait that could end, and
 *   a word added to it LOOKS times, a frame apart. Each change runs the watch's check before the
 *   page goes on; the mean of their times is what a streamed answer costs the page's main
 *   thread per change.
 *
 * The first look after the page loads pays for its style and layout; the others are medians
 * of LOOKS in a row, in one call to the page, and the watch's the mean over LOOKS changes. No
 * aim: this says where the page's time goes.
 *
 *   node dist/bench/page-looks.js
 */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { findBrowser } from '../agents/browser/find-browser.js';
import { PROVIDER_SITES } from '../agents/providers/index.js';
import type { Helpers, TurnScope } from '../agents/providers/page-helpers/types.js';
import type { PagePack } from '../agents/providers/site.js';
import { CAPTURES, openCapture, REAL_PAGES } from '../test/real-pages/captures.js';
import { heading, ms, printMachineLoad, printTable, runMain } from './support.js';

const LOOKS = 25;

/** In the page: the first look at the blockers, the medians of LOOKS looks of each kind, and the watch's mean over LOOKS changes (ms). */
async function timeLooks([pack, scope, looks]: [PagePack, TurnScope, number]) {
  const h = window.__chatbridge as Helpers;
  const once = (look: () => unknown) => {
    const started = performance.now();
    look();
    return performance.now() - started;
  };
  const median = (look: () => unknown) => {
    const times = Array.from({ length: looks }, () => once(look)).sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)]!;
  };
  /**
   * The mean time the watch's check takes the page at a change of its last answer, watched as
   * a new one that is still being written, a change a frame as a streamed answer makes them;
   * null on a page with no answer, and what the watch ended on if it did.
   */
  const watchPerChange = async (changes: number): Promise<number | string | null> => {
    const turns = h.turns(pack);
    const answer = turns.at(-1);
    if (!answer) return null;
    h.markTurns(pack, turns.length - 1);
    // No finished signal and no wait that can pass: every change is looked at, and none ends the watch.
    const never = 1e9;
    let ended = '';
    void h.watchTurn({ ...pack, finished: [] }, scope, { appearMs: never, appearWorkingMs: never, settleMs: never, lostSignalMs: never }, false, null).then((o) => (ended = o.kind));
    const part = h.answerParts(pack, answer).at(-1) ?? answer;
    const times: number[] = [];
    for (let i = 0; i < changes; i++) {
      // A frame apart, as a stream's pieces come: the page has drawn its last change.
      await new Promise((next) => requestAnimationFrame(() => setTimeout(next)));
      const started = performance.now();
      part.append(` word${i}`);
      // The watch's observer was queued by the change, before this: it has run when this resumes.
      await Promise.resolve();
      times.push(performance.now() - started);
    }
    return ended || times.reduce((sum, t) => sum + t, 0) / times.length;
  };
  return {
    elements: document.getElementsByTagName('*').length,
    firstBlockers: once(() => h.blocker(pack)),
    blockers: median(() => h.blocker(pack)),
    settleLook: median(() => h.finishedLook(pack, scope, null)),
    lookWithBlockers: median(() => h.finishedLook(pack, scope)),
    // Last: it changes the page.
    watchPerChange: await watchPerChange(looks),
  };
}

/** A time, or why there is none: no answer on the page, or what ended the watch at once (the page shows a notice). */
const watchCell = (t: number | string | null) => (t === null ? 'no answer' : typeof t === 'string' ? `ended: ${t}` : ms(t));

runMain(async () => {
  heading('The page helpers’ costliest looks, on the real captured pages');
  if (!existsSync(REAL_PAGES)) {
    console.log(`  skipped: no real captured pages at ${REAL_PAGES} (../shared/real-pages beside the clone; CHATBRIDGE_REAL_PAGES names another folder)`);
    return;
  }
  await printMachineLoad();
  const browser = await chromium.launch({ executablePath: findBrowser() });
  try {
    const rows = [['capture', 'elements', 'blockers, first', 'blockers', 'settle look', 'with the blockers', 'watch, per change']];
    for (const capture of CAPTURES) {
      const site = PROVIDER_SITES[capture.provider];
      const { page, close } = await openCapture(browser, capture);
      try {
        const t = await page.evaluate(timeLooks, [site.page, site.turnScope, LOOKS] as [PagePack, TurnScope, number]);
        rows.push([capture.file.replace(/\.html$/, ''), String(t.elements), ms(t.firstBlockers), ms(t.blockers), ms(t.settleLook), ms(t.lookWithBlockers), watchCell(t.watchPerChange)]);
      } finally {
        await close();
      }
    }
    printTable(rows);
    console.log(`\n  medians of ${LOOKS} looks in a row; "blockers, first": the first look after the page loaded.`);
    console.log('  "settle look": what the watch takes as an answer ends, the blockers found a moment before in the same call;');
    console.log('  "with the blockers": the same look when it looks for them too, as each look at what stands in the way does;');
    console.log('  "watch, per change": the watch\'s check at a word added to an answer being written (its last, watched as new), a word a frame: the mean.');
  } finally {
    await browser.close();
  }
});
