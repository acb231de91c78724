/**
 * A timed-out attempt's bundle is taken before the flow hears of the abort (it would press
 * Stop and change the page); other aborts pass at once and keep nothing; a bundle that
 * never finishes does not hold the attempt open.
 */
import { describe, expect, it } from 'vitest';
import { TimeoutBundle } from '../../agents/runtime/diagnostics.js';

/** A keep() the test finishes by hand, recording when it started. */
function manualKeep() {
  const calls: number[] = [];
  let finish: () => void = () => {};
  const keep = () => {
    calls.push(calls.length);
    return new Promise<void>((resolve) => (finish = resolve));
  };
  return { keep, calls, finish: () => finish() };
}

describe('TimeoutBundle', () => {
  it('keeps the bundle of a timed-out attempt before passing the abort on', async () => {
    const outer = new AbortController();
    const k = manualKeep();
    const t = new TimeoutBundle(outer.signal, k.keep);
    outer.abort('timed_out');
    expect(k.calls).toHaveLength(1);
    // The flow has not been told yet: the page is still as the timeout found it.
    await new Promise((r) => setImmediate(r));
    expect(t.signal.aborted).toBe(false);
    let settled = false;
    void t.settled().then(() => (settled = true));
    k.finish();
    await t.settled();
    expect(settled).toBe(true);
    expect(t.signal.aborted).toBe(true);
    expect(t.signal.reason).toBe('timed_out');
  });

  it.each(['cancelled', 'shutdown', 'expired'])('passes a %s abort on at once and keeps nothing', async (reason) => {
    const outer = new AbortController();
    const k = manualKeep();
    const t = new TimeoutBundle(outer.signal, k.keep);
    outer.abort(reason);
    expect(t.signal.aborted).toBe(true);
    expect(t.signal.reason).toBe(reason);
    expect(k.calls).toHaveLength(0);
    await t.settled();
  });

  it('passes the abort on after its cap when the bundle never finishes (a page that no longer answers)', async () => {
    const outer = new AbortController();
    const k = manualKeep();
    const t = new TimeoutBundle(outer.signal, k.keep, 30);
    outer.abort('timed_out');
    await new Promise<void>((resolve) => t.signal.addEventListener('abort', () => resolve()));
    expect(t.signal.reason).toBe('timed_out');
    await t.settled();
  });

  it('passes the abort on when the bundle fails', async () => {
    const outer = new AbortController();
    const t = new TimeoutBundle(outer.signal, () => Promise.reject(new Error('page gone')));
    outer.abort('timed_out');
    await t.settled();
    expect(t.signal.aborted).toBe(true);
  });

  it('handles a signal aborted before the attempt started, and settles at once without an abort', async () => {
    const k = manualKeep();
    const quiet = new TimeoutBundle(new AbortController().signal, k.keep);
    await quiet.settled();
    expect(quiet.signal.aborted).toBe(false);
    const outer = new AbortController();
    outer.abort('timed_out');
    const late = new TimeoutBundle(outer.signal, k.keep);
    expect(k.calls).toHaveLength(1);
    k.finish();
    await late.settled();
    expect(late.signal.aborted).toBe(true);
  });
});
