/**
 * The flow's one wait (agents/providers/flow-context.ts), on a clock the test moves: a probe
 * run again every `every` ms until it holds or the deadline passes, and a cancel that ends the
 * wait within one poll with the signal's reason, leaving no timer behind.
 */
import { describe, expect, it } from 'vitest';
import { inPage, pause, waitUntil, type Waiting } from '../../agents/providers/flow-context.js';
import { ManualClock } from '../support/manual-clock.js';

/** Lets the wait's awaited probes and timers settle before the test moves the clock again. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function waiting(): Waiting & { clock: ManualClock; abort(reason: unknown): void } {
  const clock = new ManualClock();
  const controller = new AbortController();
  return { pageTime: clock, signal: controller.signal, clock, abort: (reason) => controller.abort(reason) };
}

/** The outcome of `wait` so far, without awaiting it. */
function watched<T>(wait: Promise<T>) {
  const state: { done: boolean; value?: T; error?: unknown } = { done: false };
  wait.then(
    (value) => Object.assign(state, { done: true, value }),
    (error: unknown) => Object.assign(state, { done: true, error }),
  );
  return state;
}

describe('waitUntil', () => {
  it('returns what the probe sees once it holds, probing every `every` ms of the clock', async () => {
    const ctx = waiting();
    let probes = 0;
    const state = watched(waitUntil(ctx, async () => (++probes === 3 ? 'there' : null), { within: 1_000, every: 100 }));
    await settle();
    expect(probes).toBe(1);
    ctx.clock.advance(99);
    await settle();
    expect(probes).toBe(1);
    ctx.clock.advance(1);
    await settle();
    expect(probes).toBe(2);
    ctx.clock.advance(100);
    await settle();
    expect(state).toEqual({ done: true, value: 'there' });
    expect(ctx.clock.pendingTimers()).toBe(0);
  });

  it('gives up at its deadline with undefined, after probing once more at it, and tells the probe the time left', async () => {
    const ctx = waiting();
    const left: number[] = [];
    const state = watched(waitUntil(ctx, async (ms) => (left.push(ms), false), { within: 300, every: 100 }));
    for (let i = 0; i < 3; i++) {
      await settle();
      ctx.clock.advance(100);
    }
    await settle();
    expect(state).toEqual({ done: true, value: undefined });
    expect(left).toEqual([300, 200, 100, 0]);
  });

  it('probes once even when no time is given', async () => {
    const ctx = waiting();
    let probes = 0;
    expect(await waitUntil(ctx, async () => (++probes, null), { within: 0, every: 100 })).toBeUndefined();
    expect(probes).toBe(1);
  });

  it('ends at once with the abort reason when cancelled between probes, and probes no more', async () => {
    const ctx = waiting();
    let probes = 0;
    const state = watched(waitUntil(ctx, async () => (++probes, null), { within: 60_000, every: 5_000 }));
    await settle();
    ctx.abort('cancelled');
    await settle();
    // Without the clock moving: the sleep between probes is cut short.
    expect(state).toEqual({ done: true, error: 'cancelled' });
    expect(ctx.clock.pendingTimers()).toBe(0);
    ctx.clock.advance(60_000);
    await settle();
    expect(probes).toBe(1);
  });

  it('lets a probe under way finish (it may be pressing something), then throws the abort reason', async () => {
    const ctx = waiting();
    let finishProbe: () => void = () => {};
    const probe = () => new Promise<boolean>((resolve) => (finishProbe = () => resolve(true)));
    const state = watched(waitUntil(ctx, probe, { within: 60_000, every: 100 }));
    await settle();
    ctx.abort('timed_out');
    await settle();
    expect(state.done).toBe(false);
    finishProbe();
    await settle();
    // What the probe saw is not taken: the job is over.
    expect(state).toEqual({ done: true, error: 'timed_out' });
  });

  it('does not probe at all once the signal has aborted', async () => {
    const ctx = waiting();
    ctx.abort('shutdown');
    let probes = 0;
    await expect(waitUntil(ctx, async () => ++probes, { within: 1_000, every: 100 })).rejects.toBe('shutdown');
    expect(probes).toBe(0);
  });
});

describe('pause', () => {
  it('lasts its time on the clock, and a cancel ends it at once', async () => {
    const ctx = waiting();
    const done = watched(pause(ctx, 250));
    ctx.clock.advance(249);
    await settle();
    expect(done.done).toBe(false);
    ctx.clock.advance(1);
    await settle();
    expect(done.done).toBe(true);

    const cut = watched(pause(ctx, 250));
    ctx.abort('cancelled');
    await settle();
    expect(cut).toEqual({ done: true, error: 'cancelled' });
    expect(ctx.clock.pendingTimers()).toBe(0);
  });
});

describe('inPage', () => {
  it("passes on the page's own wait, unless the signal aborts first", async () => {
    const ctx = waiting();
    expect(await inPage(ctx, Promise.resolve('seen'))).toBe('seen');
    const state = watched(inPage(ctx, new Promise<string>(() => {})));
    ctx.abort('cancelled');
    await settle();
    expect(state).toEqual({ done: true, error: 'cancelled' });
  });
});
