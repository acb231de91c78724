/**
 * The serial wake-up every periodic or on-demand job of the service runs through: runs never
 * overlap, asks during a run cost one more run after it, errors go to the handler and stop
 * nothing, and `idle()` is what a test awaits instead of sleeping.
 */
import { describe, expect, it } from 'vitest';
import { OneAtATime } from '../../main/core/one-at-a-time.js';

/** A task whose runs each wait for `finish()`; it counts runs and how many were under way at once. */
function gatedTask() {
  const seen = { runs: 0, active: 0, mostAtOnce: 0 };
  const gates: (() => void)[] = [];
  const task = async () => {
    seen.runs++;
    seen.mostAtOnce = Math.max(seen.mostAtOnce, ++seen.active);
    await new Promise<void>((resolve) => gates.push(resolve));
    seen.active--;
  };
  /** Resolves once `n` runs have started (a run starts a few microtasks after its ask). */
  const started = async (n: number) => {
    while (seen.runs < n) await new Promise((resolve) => setImmediate(resolve));
  };
  /** Ends the run under way, once it has started. */
  const finish = async () => {
    while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    gates.shift()!();
  };
  return { seen, task, started, finish };
}

const noErrors = (error: Error) => {
  throw error;
};

describe('OneAtATime', () => {
  it('runs once for a burst of asks, and once more for any number of asks during a run', async () => {
    const { seen, task, started, finish } = gatedTask();
    const serial = new OneAtATime(task, noErrors);
    for (let i = 0; i < 3; i++) void serial.run();
    await finish();
    await serial.idle();
    expect(seen.runs).toBe(1);

    void serial.run();
    await started(2);
    for (let i = 0; i < 3; i++) void serial.run();
    await finish();
    await started(3);
    expect(serial.busy).toBe(true);
    await finish();
    await serial.idle();
    expect(seen).toEqual({ runs: 3, active: 0, mostAtOnce: 1 });
    expect(serial.busy).toBe(false);
  });

  it('resolves run() only after a run that started after the ask', async () => {
    const { task, started, finish } = gatedTask();
    const serial = new OneAtATime(task, noErrors);
    void serial.run();
    await started(1);
    let done = false;
    const asked = serial.run().then(() => (done = true));
    await finish(); // the run that was under way at the ask ends: not enough
    await started(2);
    expect(done).toBe(false);
    await finish();
    await asked;
    expect(done).toBe(true);
  });

  it('hands a failed run to the handler, and runs again on the next ask', async () => {
    const errors: string[] = [];
    let calls = 0;
    const serial = new OneAtATime(async () => {
      calls++;
      if (calls === 1) throw new Error('database out of reach');
    }, (error) => errors.push(error.message));
    await serial.run();
    expect(errors).toEqual(['database out of reach']);
    await serial.run();
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
  });

  it("gathers the asks of one turn of the event loop when told to, not only one burst's", async () => {
    let burst = 0;
    let turn = 0;
    const byBurst = new OneAtATime(async () => void burst++, noErrors);
    const byTurn = new OneAtATime(async () => void turn++, noErrors, 'turn');
    for (const serial of [byBurst, byTurn]) {
      void serial.run();
      // An ask from a promise callback in the same turn (as a store event after a commit).
      await Promise.resolve();
      await Promise.resolve();
      void serial.run();
    }
    await Promise.all([byBurst.idle(), byTurn.idle()]);
    expect(burst).toBe(2);
    expect(turn).toBe(1);
  });
});
