/**
 * What Profile F (decisions.md) says that Profile H would say differently, in one place:
 * the timestamp format, the body of an accepted `wait: false` job, the `details` of
 * job-outcome errors, and the job object's fields (F shows no `content_pruned_at`: a job
 * whose content retention removed reads as `response: null`; the dashboard says when).
 * A Profile H mode would be another implementation of this module.
 */
import type { JobRow, AttemptRow } from '../queue/job-store.js';
import type { Accepted, AttemptRecord, Job } from './schemas.js';

/** ISO 8601 UTC with whole seconds: 2026-11-21T10:00:00Z. */
export function timestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function jobObject(row: JobRow, agentName: string | null, queuePosition?: number): Job {
  const job: Job = {
    id: row.id,
    status: row.status,
    response: row.response,
    provider: row.provider ?? row.req_provider,
    agent_id: row.agent_id,
    agent_name: agentName,
    conversation_ref: row.conversation_ref,
    attempts: row.attempts,
    queue_ms: row.queue_ms,
    run_ms: row.run_ms,
    created_at: timestamp(row.created_at),
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
  // decisions.md: finished_at is absent, not null, while the job is unfinished.
  if (row.finished_at !== null) job.finished_at = timestamp(row.finished_at);
  if (queuePosition !== undefined) job.queue_position = queuePosition;
  return job;
}

/** The 202 body of `wait: false` (F): id, status and created_at only. */
export function acceptedBody(row: JobRow): Accepted {
  return { id: row.id, status: 'queued', created_at: timestamp(row.created_at) };
}

export function attemptRecords(rows: AttemptRow[]): AttemptRecord[] {
  return rows.map((a) => ({
    attempt: a.attempt,
    agent_id: a.agent_id,
    provider: a.provider,
    started_at: timestamp(a.started_at),
    ended_at: a.ended_at === null ? null : timestamp(a.ended_at),
    outcome: a.outcome,
    error_code: a.error_code,
  }));
}

/** `details` of a 502 for a failed job: (F) the per-attempt record; the job id as (H) has it. */
export function failureDetails(row: JobRow, attempts: AttemptRow[]): Record<string, unknown> {
  return { job_id: row.id, attempts: attemptRecords(attempts) };
}

/** `details` of a 504 JOB_TIMEOUT and of a 499 JOB_CANCELLED. */
export function outcomeDetails(row: JobRow): Record<string, unknown> {
  return { job_id: row.id, status: row.status };
}
