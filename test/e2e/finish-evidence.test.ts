/**
 * When an answer is finished (page-helpers/watch.ts), on every provider's simulated page with
 * the pack as the flow uses it: a pause in the middle of an answer (nothing changes, the stop
 * control hidden: the simulator's `[[sim:think]]`) never ends it. The site's finished signal
 * ends it; where no cue finds the signal (the `no-finish` drift, with `no-copy`), the
 * answer's own controls appearing once the writing stopped do, after `settleMs` of stillness,
 * or `lostSignalMs` where the signal was expected or the controls were there at the watch's first
 * look (an answer done before it began); a still answer without them never ends. A finished
 * answer comes with the look the flow reads it by and the model the page names, as they read
 * once it is done.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import { PROVIDER_SITES } from '../../agents/providers/index.js';
import { PAGE_HELPERS_SCRIPT, type TurnOutcome, type WatchLimits } from '../../agents/providers/page-helpers.js';
import type { Finished, TurnScope } from '../../agents/providers/page-helpers/types.js';
import type { PagePack } from '../../agents/providers/site.js';
import { modelReading } from '../../agents/providers/variant-pack.js';
import type { DriftKind } from '../../agents/simulator/client/drift-kinds.js';
import { PROVIDERS, type Provider } from '../../main/core/providers.js';
import { describeBeside } from '../support/beside.js';
import { openSimPage, typeAndSend, type SimPage } from '../support/sim-page.js';
import { until } from '../support/until.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

const LIMITS: WatchLimits = { appearMs: 10_000, appearWorkingMs: 10_000, settleMs: 400, lostSignalMs: 1_500 };
/** The finished signal and every Copy unknown to the pack. */
const UNSIGNALLED: DriftKind[] = ['no-finish', 'no-copy'];
/** An answer that stops halfway for 2 s, nothing changing, its stop control hidden. */
const PAUSED = 'Pause check [[sim:ms=600]] [[sim:think=2000]]';

describeBeside('the end of an answer', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await takeTestBrowser();
  });
  afterAll(async () => giveBackTestBrowser(browser));

  interface Watch {
    markerExpected?: boolean;
    limits?: WatchLimits;
    /** Starts the watch once this resolves, after the send; without it, from before the send, as the flow watches. */
    after?: (sim: SimPage) => Promise<unknown>;
  }

  /** Sends `prompt` on `provider`'s page as the flow does, and watches its answer. */
  const ask = async (provider: Provider, drift: DriftKind[], prompt: string, { markerExpected = false, limits = LIMITS, after }: Watch = {}) => {
    const site = PROVIDER_SITES[provider];
    const args: [PagePack, TurnScope] = [site.page, site.turnScope];
    const sim = await openSimPage(browser, provider, { look: { drift }, initScript: PAGE_HELPERS_SCRIPT });
    await sim.page.evaluate(([p]) => window.__chatbridge!.markTurns(p), args);
    const composer = await sim.page.evaluateHandle(([p]) => window.__chatbridge!.find(p.composer), args);
    await composer.asElement()!.click();
    await composer.dispose();
    const reading = modelReading(site.variants);
    const watch = () =>
      sim.page.evaluate(([p, scope, l, expected, r]) => window.__chatbridge!.watchTurn(p, scope, l, expected, r), [...args, limits, markerExpected, reading] as const);
    // Watching before the send, as the flow watches from the send on: started after it, on a
    // loaded machine the watch could first see a short answer already done (text and controls
    // at once), which it takes for done only once they held for lostSignalMs.
    let watching = after ? undefined : watch();
    await typeAndSend(sim, ':focus', prompt);
    if (after) {
      await after(sim);
      watching = watch();
    }
    /** What the watch said, and how long after the page showed the answer done (the page's own clock, the machine's). */
    const outcome = watching!.then(async (o) => {
      const at = Date.now();
      const done = await until(() => sim.sim.log.finishes[0], 15_000, 'the site to log the answer done');
      return { outcome: o, afterDoneMs: at - done.at };
    });
    return { sim, outcome };
  };

  const closing = new Set<SimPage>();
  afterAll(async () => Promise.all([...closing].map((s) => s.close())));

  /** Starts the watch once the site logged the answer done: as a conversation reopened to collect it first looks. */
  const done = (s: SimPage) => until(() => s.sim.log.finishes[0], 10_000, 'the answer done');

  for (const provider of PROVIDERS) {
    it(`${provider}: a pause mid-answer waits for the finished signal, or, where no cue finds it nor Copy, for the answer's own controls; an answer done before the watch, for them to hold`, async ({ expect }) => {
      const [signalled, unsignalled, doneFirst] = await Promise.all([
        ask(provider, [], PAUSED),
        ask(provider, UNSIGNALLED, PAUSED),
        ask(provider, UNSIGNALLED, 'Quick [[sim:ms=300]]', { after: done }),
      ]);
      closing.add(signalled.sim).add(unsignalled.sim).add(doneFirst.sim);
      const bySignal = await signalled.outcome;
      expect(bySignal.outcome).toMatchObject({ kind: 'finished', by: 'marker' });
      // What the flow reads next came with the end, as the page reads once the answer is done.
      const site = PROVIDER_SITES[provider];
      const reading = modelReading(site.variants);
      const onceDone = await signalled.sim.page.evaluate(
        ([p, scope, r]) => ({ look: window.__chatbridge!.finishedLook(p, scope), modelUsed: r ? window.__chatbridge!.modelUsed(p, scope, r) : null }),
        [site.page, site.turnScope, reading] as const,
      );
      // Where Copy is pressed, not its exact point: the page may still move a pixel or two once done.
      const shape = ({ look, modelUsed }: Pick<Finished, 'look' | 'modelUsed'>) => ({
        ...look,
        copy: 'copy' in look ? { last: look.copy.last, point: look.copy.point !== null } : undefined,
        modelUsed,
      });
      const finished = bySignal.outcome as Finished;
      expect(shape(finished)).toEqual(shape(onceDone));
      expect(finished.look).toMatchObject({ inTheWay: null, nonText: null });
      // Ended once the page showed the answer done, not in the pause before.
      expect(bySignal.afterDoneMs).toBeGreaterThanOrEqual(0);
      const byEvidence = await unsignalled.outcome;
      const o = byEvidence.outcome as Extract<TurnOutcome, { by: 'evidence' }>;
      expect(o).toMatchObject({ kind: 'finished', by: 'evidence', expected: false, alreadyShown: false });
      expect(o.stillMs).toBeGreaterThanOrEqual(LIMITS.settleMs);
      expect(o.controls).toBeGreaterThan(0);
      expect(byEvidence.afterDoneMs).toBeGreaterThanOrEqual(0);
      // Text and controls there at the first look: written or done, only holding for lostSignalMs tells.
      const tooLong = new Promise<never>((_, no) => setTimeout(() => no(new Error('still watching an answer done before the watch')), 4 * LIMITS.lostSignalMs));
      const { outcome: first } = await Promise.race([doneFirst.outcome, tooLong]);
      expect(first).toMatchObject({ kind: 'finished', by: 'evidence', expected: false, alreadyShown: true });
      expect((first as Extract<TurnOutcome, { by: 'evidence' }>).stillMs).toBeGreaterThanOrEqual(LIMITS.lostSignalMs);
    });
  }

  it('where the signal was expected, its absence asks the controls to hold for lostSignalMs', async ({ expect }) => {
    const { sim, outcome } = await ask('deepseek', UNSIGNALLED, 'Quick [[sim:ms=300]]', { markerExpected: true });
    closing.add(sim);
    const { outcome: o } = await outcome;
    expect(o).toMatchObject({ kind: 'finished', by: 'evidence', expected: true, alreadyShown: false });
    expect((o as Extract<TurnOutcome, { by: 'evidence' }>).stillMs).toBeGreaterThanOrEqual(LIMITS.lostSignalMs);
  });

  it('a watch that first looks during a pause waits for the controls the end brings', async ({ expect }) => {
    // Looks 300 ms into the 2 s pause; lostSignalMs longer than the pause, as in the product (30 s).
    const inPause = (s: SimPage) => until(() => s.sim.log.sends[0], 10_000, 'the send').then(() => new Promise((r) => setTimeout(r, 900)));
    const limits = { ...LIMITS, lostSignalMs: 4_000 };
    const { sim, outcome } = await ask('chatgpt', UNSIGNALLED, PAUSED, { after: inPause, limits });
    closing.add(sim);
    const { outcome: o, afterDoneMs } = await outcome;
    expect(o).toMatchObject({ kind: 'finished', by: 'evidence', alreadyShown: false });
    expect(afterDoneMs).toBeGreaterThanOrEqual(0);
  });

  it('a still answer with neither the signal nor its controls never ends', async ({ expect }) => {
    const { sim, outcome } = await ask('chatgpt', UNSIGNALLED, 'Stalled [[sim:ms=400]] [[sim:think=60000]]');
    closing.add(sim);
    let ended = false;
    // Still watching when the page is closed: the watch then fails with the page.
    void outcome.then(
      () => (ended = true),
      () => {},
    );
    // Half the answer is on the page and has been still for several settle times.
    await until(() => sim.sim.log.sends.length === 1);
    await new Promise((r) => setTimeout(r, 6 * LIMITS.settleMs + 1_000));
    expect(ended).toBe(false);
    expect(await sim.page.evaluate(() => document.body.innerText)).toContain('Simulated ChatGPT');
  });
});
