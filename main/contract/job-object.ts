/**
 * The job object as the contract writes it, from the store's row: each profile's (profile.ts
 * chooses), and the per-attempt records a failed job's details and the dashboard show.
 */
import type { AttemptRow, JobView } from '../core/jobs.js';
import { timestamp, timestampMs } from '../core/timestamps.js';
import { attachmentMeta } from '../core/attachments.js';
import type { AttemptRecord, HostedJob, Job } from './schemas.js';

/** A job's attempts, one record each (the 502's `details.attempts` in Profile F, the dashboard's job detail). */
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

/** Why a queued job waits, as the job object shows it (queue/wait-reason.ts). */
export interface JobWait {
  text: string;
  until: number | null;
}

/**
 * The job object of Profile F (decisions.md). F shows no `content_pruned_at`: a job whose
 * content retention removed reads as `response: null`; the dashboard says when.
 */
export function jobObject(row: JobView, agentName: string | null, queuePosition?: number, wait?: JobWait): Job {
  const job: Job = {
    id: row.id,
    status: row.status,
    response: row.response,
    provider: row.provider ?? row.req_provider,
    agent_id: row.agent_id,
    agent_name: agentName,
    variant: row.variant,
    model_used: row.model_used,
    conversation_ref: row.conversation_ref,
    attempts: row.attempts,
    queue_ms: row.queue_ms,
    run_ms: row.run_ms,
    created_at: timestamp(row.created_at),
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    // Described only: the store holds the bytes, and no reader of a job gets them.
    attachments: row.attachments.map(attachmentMeta),
  };
  // decisions.md: finished_at is absent, not null, while the job is unfinished.
  if (row.finished_at !== null) job.finished_at = timestamp(row.finished_at);
  if (queuePosition !== undefined) job.queue_position = queuePosition;
  if (wait) {
    job.waiting_because = wait.text;
    if (wait.until !== null) job.waiting_until = timestamp(wait.until);
  }
  return job;
}

/** The job object of Profile H (api.md "Job object", the (H) rows). */
export function hostedJobObject(row: JobView, queuePosition?: number): HostedJob {
  const job: HostedJob = {
    ...jobObject(row, null, queuePosition),
    provider: row.req_provider,
    agent_name: null,
    created_at: timestampMs(row.created_at),
    content_pruned_at: row.content_pruned_at === null ? null : timestampMs(row.content_pruned_at),
  };
  if (row.finished_at !== null) job.finished_at = timestampMs(row.finished_at);
  return job;
}
