import type { StopReport } from '../queue/scheduler.js';

/** How long a stop lets the answers under way finish, unless `serve --stop-grace` says otherwise. */
export const DEFAULT_STOP_GRACE_MS = 20_000;

/**
 * Ctrl-C (SIGINT, which a terminal sends to the whole process group), SIGTERM and SIGHUP (the
 * terminal closed) all stop the same clean way. The browsers never hear them: Playwright's
 * own handlers are off (agents/browser/chromium-host.ts), and Chromium runs in its own
 * process group.
 */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface Stoppable {
  readonly attemptsUnderWay: number;
  stop(options: { graceMs: number }): Promise<StopReport>;
  endGrace(): void;
}

/**
 * Stops `service` cleanly on the first stop signal: the answers under way get `graceMs` to
 * finish (a second signal cuts it short), then `closers` run (the browsers, the simulated
 * sites), the `stopped:` line says what became of the running jobs, and the process exits 0.
 */
export function stopOnSignals(service: Stoppable, graceMs: number, closers: readonly (() => Promise<void>)[]): void {
  let stopping = false;
  const onSignal = () => {
    if (stopping) return service.endGrace();
    stopping = true;
    const running = service.attemptsUnderWay;
    if (running > 0 && graceMs > 0) {
      process.stderr.write(
        `chatbridge: stopping: ${running === 1 ? 'the answer under way has' : `the ${running} answers under way have`} up to ${graceMs / 1000} s to finish; ` +
          'press Ctrl-C again to stop now (what was sent is collected after the restart, what was not is sent then).\n',
      );
    }
    service
      .stop({ graceMs })
      .then(async (report) => {
        await Promise.all(closers.map((close) => close()));
        process.stdout.write(`stopped: ${stopSummary(report)}\n`);
      })
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`chatbridge: error while stopping: ${(error as Error).message}\n`);
          process.exit(1);
        },
      );
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
}

/** What became of the running jobs, in the `stopped:` line's words. */
export function stopSummary({ ended, requeued, toCollect, notCollected }: StopReport): string {
  const parts = [
    ended > 0 && `${count(ended, 'running job')} ended within the grace`,
    requeued > 0 && `${count(requeued, 'job')} went back to the queue, not sent yet`,
    toCollect > 0 && `${count(toCollect, 'answer')} still being written ${toCollect === 1 ? 'is' : 'are'} collected from ${toCollect === 1 ? 'its' : 'their'} conversation after the restart`,
    notCollected > 0 && `${count(notCollected, 'job')} failed: sent before the page gave ${notCollected === 1 ? 'its' : 'their'} conversation an address, and never sent twice`,
  ].filter((part): part is string => typeof part === 'string');
  return parts.length > 0 ? parts.join('; ') : 'no job was running';
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}
