/**
 * Time is injected everywhere the queue makes a decision (deadlines, per-attempt timeouts,
 * the rolling hourly window, retry schedules), so tests drive it without sleeping.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds unless cancelled first. */
  setTimer(fn: () => void, ms: number): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    // Node caps timers at 2^31-1 ms; no deadline here is anywhere near that.
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};
