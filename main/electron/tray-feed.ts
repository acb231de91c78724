/** The timers `coalesced` uses; tests pass fake ones. */
export interface Timers {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * `run` at most once per `intervalMs`, however often the returned function is called: the
 * first call runs it on the next tick, calls within the interval after a run make one more
 * run at the interval's end. Never synchronously, so a caller (a job event's publisher)
 * never waits on it nor hears its exceptions.
 */
export function coalesced(run: () => void, intervalMs: number, timers: Timers = realTimers): { (): void; stop(): void } {
  let last = -Infinity;
  let pending: unknown = null;
  let stopped = false;
  const fire = () => {
    pending = null;
    last = timers.now();
    run();
  };
  const call = () => {
    if (pending !== null || stopped) return;
    pending = timers.setTimeout(fire, Math.max(0, last + intervalMs - timers.now()));
  };
  call.stop = () => {
    stopped = true;
    if (pending !== null) timers.clearTimeout(pending);
    pending = null;
  };
  return call;
}

/** What the tray shows changes only through these (the Service has all three). */
export interface TraySources {
  /** Every job change: accepted, dispatched, finished, cancelled, requeued. */
  events: { subscribeAll(listener: () => void): () => void };
  /** Agents' states, and any commit by another process (the service reloads the pool). */
  pool: { onChange(listener: () => void): () => void };
  /** Paused or resumed: from the tray, the dashboard, or `chatbridge pause`. */
  settings: { onChange(listener: () => void): () => void };
}

/** Refreshes the tray after every change it shows, coalesced; returns the function that stops it. */
export function feedTray(sources: TraySources, refresh: () => void, intervalMs = 250, timers?: Timers): () => void {
  const changed = coalesced(refresh, intervalMs, timers);
  const stops = [sources.events.subscribeAll(changed), sources.pool.onChange(changed), sources.settings.onChange(changed)];
  return () => {
    for (const stop of stops) stop();
    changed.stop();
  };
}
