import type { JobStatus } from '../core/jobs.js';

/**
 * The job state machine of api.md "States and transitions", as one table. Every change of
 * a job's status in the store goes through `transition`, which refuses anything else.
 */

export type JobEvent =
  | 'dispatch' // capacity is free and every cap allows it
  | 'succeed' // the attempt returned an answer
  | 'retry' // the attempt failed and attempts remain: back to the queue (decisions.md)
  | 'fail' // the attempt failed and no attempt remains, or it must not be retried
  | 'cancel' // DELETE /v1/completions/{id}
  | 'expire'; // the whole-job deadline passed

const TRANSITIONS: Record<JobStatus, Partial<Record<JobEvent, JobStatus>>> = {
  queued: { dispatch: 'dispatched', cancel: 'cancelled', expire: 'expired' },
  dispatched: { succeed: 'succeeded', retry: 'queued', fail: 'failed', cancel: 'cancelled', expire: 'expired' },
  succeeded: {},
  failed: {},
  cancelled: {},
  expired: {},
};

export class IllegalTransition extends Error {
  constructor(
    readonly from: JobStatus,
    readonly event: JobEvent,
  ) {
    super(`A ${from} job cannot ${event}`);
  }
}

export function transition(from: JobStatus, event: JobEvent): JobStatus {
  const to = TRANSITIONS[from][event];
  if (!to) throw new IllegalTransition(from, event);
  return to;
}

export function isFinal(status: JobStatus): boolean {
  return Object.keys(TRANSITIONS[status]).length === 0;
}
