import type { JobDetail } from './api.js';

/**
 * Where a job's time went, from its attempts: each part true on its own, and together the
 * whole ("Took" in the list). The job object's `queue_ms` is only the wait before the first
 * dispatch (api.md keeps it so), which says nothing of a job re-queued after a limit.
 */
export interface JobTimings {
  /** Before the first attempt: to now while none has started, or to the end of a job that never started. */
  firstWaitMs: number;
  /** The attempts themselves, a running one counted to now. */
  runMs: number;
  /** Back in the queue after an attempt: between attempts, and after the last (re-queued now, or until cancelled or expired). */
  betweenMs: number;
  /** From sending to the end, or to now while unfinished. */
  totalMs: number;
  /** When the job went back to the queue, if it waits there now after an attempt. */
  waitingAgainSince: string | null;
}

export function jobTimings(detail: Pick<JobDetail, 'job' | 'attempts' | 'took_ms'>, now: number): JobTimings {
  const { job, attempts, took_ms } = detail;
  // The whole-second timestamps serve only for what still grows; finished figures are the server's milliseconds.
  const since = (iso: string) => Math.max(0, now - Date.parse(iso));
  const totalMs = took_ms ?? since(job.created_at);
  if (attempts.length === 0) return { firstWaitMs: totalMs, runMs: 0, betweenMs: 0, totalMs, waitingAgainSince: null };

  const runMs = attempts.reduce((sum, a) => sum + (a.run_ms ?? since(a.started_at)), 0);
  const firstWaitMs = attempts[0]!.waited_ms;
  const gaps = attempts.slice(1).reduce((sum, a) => sum + a.waited_ms, 0);
  const last = attempts[attempts.length - 1]!;
  const waitingAgainSince = job.status === 'queued' && last.ended_at !== null ? last.ended_at : null;
  // After the last attempt: the wait going on now, or what the whole has beyond the attempts and the waits before them.
  const after = waitingAgainSince
    ? since(waitingAgainSince)
    : took_ms === null
      ? 0
      : Math.max(0, took_ms - firstWaitMs - runMs - gaps);
  return { firstWaitMs, runMs, betweenMs: gaps + after, totalMs, waitingAgainSince };
}
