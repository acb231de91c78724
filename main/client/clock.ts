/**
 * Time as the client sees it, injectable so the retry rules are tested without waiting.
 * The shape is the service's own Clock (main/core/clock.ts), copied rather than imported
 * because this folder ships alone as `chatbridge/client`.
 */
export interface ClientClock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds unless cancelled first. */
  setTimer(fn: () => void, ms: number): { cancel(): void };
}

/** Real time. Its timers keep the process alive: a script waiting out a back-off must not exit. */
export const realClock: ClientClock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(t) };
  },
};

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(clock: ClientClock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      timer.cancel();
      reject(signal!.reason);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
