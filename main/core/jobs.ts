/**
 * The shapes of jobs, attempts and conversations as the job store keeps them, and the words
 * of its port (main/queue/job-store.ts). Types and constants only: both stores (SQLite,
 * PostgreSQL), the queue and the HTTP layer share them without importing one another.
 */
import type { AttachmentMeta, NewAttachment } from './attachments.js';

/** The job statuses of api.md "States and transitions"; main/queue/state-machine.ts moves between them. */
export const JOB_STATUSES = ['queued', 'dispatched', 'succeeded', 'failed', 'cancelled', 'expired'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export type AttemptOutcome = 'succeeded' | 'failed' | 'timed_out' | 'cancelled' | 'agent_lost';

export interface JobRow {
  id: string;
  status: JobStatus;
  prompt: string;
  req_provider: string | null;
  req_agent_id: string | null;
  conversation_in: string | null;
  priority: number;
  timeout_ms: number;
  deadline_at: number;
  max_attempts: number;
  callback_url: string | null;
  metadata: string;
  created_at: number;
  attempts: number;
  queue_ms: number | null;
  run_ms: number;
  agent_id: string | null;
  provider: string | null;
  response: string | null;
  conversation_ref: string | null;
  error_code: string | null;
  error_message: string | null;
  finished_at: number | null;
  /** When retention removed the prompt (now '') and response (now null); null while they are stored. */
  content_pruned_at: number | null;
  /** The API key that submitted the job, 'admin' for the dashboard's token; null before this was recorded. */
  api_key_id: string | null;
  /** (H) The account that submitted the job; null in Profile F (the install is the one account) and for the admin token. */
  account_id: string | null;
  /** The variant (a model or mode of the provider's picker, by its pack id) asked for; null: the account's default. */
  variant: string | null;
  /** The model the page said answered (ChatGPT's model slug); null where the page does not say. */
  model_used: string | null;
  /** The job's files, in order, as described (the store keeps their bytes beside the job); [] when none. */
  attachments: AttachmentMeta[];
}

/**
 * A job as its caller is shown it: every field but the prompt, which no job object carries
 * and which may be 100 000 characters. What a poll reads (JobStore.view).
 */
export type JobView = Omit<JobRow, 'prompt'>;

/** Every field of a JobView, once: the compiler holds this to the type, a field more or less fails. */
const VIEW_FIELDS: Record<keyof JobView, true> = {
  id: true, status: true, req_provider: true, req_agent_id: true, conversation_in: true, priority: true, timeout_ms: true,
  deadline_at: true, max_attempts: true, callback_url: true, metadata: true, created_at: true, attempts: true, queue_ms: true,
  run_ms: true, agent_id: true, provider: true, response: true, conversation_ref: true, error_code: true, error_message: true,
  finished_at: true, content_pruned_at: true, api_key_id: true, account_id: true, variant: true, model_used: true, attachments: true,
};

/** The columns a SELECT of a JobView names: every column of `jobs` but `prompt`. */
export const JOB_VIEW_COLUMNS = Object.keys(VIEW_FIELDS).join(', ');

export type NewJob = Pick<
  JobRow,
  | 'id'
  | 'prompt'
  | 'req_provider'
  | 'req_agent_id'
  | 'conversation_in'
  | 'priority'
  | 'timeout_ms'
  | 'deadline_at'
  | 'max_attempts'
  | 'callback_url'
  | 'metadata'
  | 'created_at'
  | 'api_key_id'
> & { account_id?: string | null; variant?: string | null };

export interface AttemptRow {
  job_id: string;
  attempt: number;
  agent_id: string;
  provider: string;
  started_at: number;
  ended_at: number | null;
  outcome: AttemptOutcome | null;
  error_code: string | null;
  detail: string | null;
  /**
   * Where the answer to this attempt's prompt can be found again once the prompt went
   * (core/agent.ts SentPrompt), kept so that a restart collects it instead of sending it
   * again: the conversation's own address (null until the page showed one), and the
   * assistant turns the page showed before the send (null: the prompt has not gone).
   */
  sent_conversation: string | null;
  sent_turns_before: number | null;
}

export interface ConversationRow {
  id: string;
  agent_id: string;
  provider: string;
  address: string;
  created_at: number;
  updated_at: number;
  account_id: string | null;
}

/**
 * Whose jobs are looked at: an account's (null in Profile F, where the install is the one
 * account), or every account's, as the operator sees them in the dashboard and metrics.
 */
export const EVERY_ACCOUNT = Symbol('every account');
export type Viewer = string | null | typeof EVERY_ACCOUNT;

/** What a queued job needs for the scheduler to match it with an agent. */
export type QueuedJob = Pick<JobRow, 'id' | 'req_provider' | 'req_agent_id' | 'conversation_in' | 'account_id' | 'variant' | 'attachments'>;

/** What the scheduler knows about the attempt that just failed, beyond its code. */
export interface FailureContext {
  /** What the agent said (a page's error text, the control it could not find). */
  detail?: string | null;
  /**
   * Whether another agent could take a retry now (one is idle or busy). A page found changed
   * is not waited on: with no other agent, the job fails at once instead of queuing behind
   * an agent that is set aside until its page works again.
   */
  retryElsewhere?: boolean;
}

export type AttemptEnd =
  /** `detail`: how the answer came: how its end was decided, and whether it was collected by reopening its conversation. */
  | { outcome: 'succeeded'; response: string; conversationRef: string; conversationAddress: string; modelUsed?: string | null; detail?: string | null }
  | ({ outcome: Exclude<AttemptOutcome, 'succeeded' | 'cancelled'>; errorCode: string } & FailureContext);

/** What `delete` did: a live job is refused, with its status, so the caller can say why. */
export type Deletion = { deleted: true } | { deleted: false; status: JobStatus };

/** A job moved by the store, with the status it had before. */
export interface Moved {
  job: JobRow;
  from: JobStatus;
}

/** An idempotency entry to look up and record in the same transaction as the insert. */
export interface IdempotencyClaim {
  /** Already scoped by account by the caller. */
  key: string;
  /** requestHash(path, body). */
  hash: string;
  /** Only entries made after now - ttlMs count (0: none does; the entry is only recorded). */
  ttlMs: number;
  /**
   * 'conflict': an entry with another hash is a conflict (an explicit Idempotency-Key).
   * 'replace': an entry with another hash is ignored and replaced; an entry found is
   * refreshed (the implicit key of an SDK's automatic repeat).
   */
  onOtherHash: 'conflict' | 'replace';
}

export interface SubmitRequest {
  /** id and created_at chosen by the caller (ids.job(now), clock.now()). */
  job: NewJob;
  /**
   * The job's files with their bytes, in order: their description goes on the job row, their
   * bytes beside it, on disk once `submit` resolves with the job (SQLite writes them a chunk a
   * turn before the job's commit, PostgreSQL in its transaction); nothing stays of them when
   * no job is created. The store keeps no reference to the buffers.
   */
  attachments?: readonly NewAttachment[];
  idempotency?: IdempotencyClaim;
  /** At most this many jobs of job.account_id queued (LIMITS.queuedJobs), counted inside the transaction. */
  queuedLimit: number;
  /**
   * A new job would be refused (Profile F's `wait: false` job that cannot start now): the
   * idempotency entry's job is still found and the queue limit still checked, in that order,
   * but nothing is written; 'refused' stands for the job that was not created.
   */
  refuseNew?: boolean;
}

export type SubmitResult =
  | { kind: 'created'; job: JobRow }
  /** The idempotency entry's job (still existing). */
  | { kind: 'found'; job: JobRow }
  /** Same key, another request (onOtherHash 'conflict'). */
  | { kind: 'conflict' }
  /** queuedLimit reached: nothing written. */
  | { kind: 'queue_full' }
  /** refuseNew, and neither of the above: nothing written. */
  | { kind: 'refused' };

/** An attempt started: what the rolling hourly window of the caps counts (decisions.md). */
export interface AttemptStart {
  job_id: string;
  attempt: number;
  agent_id: string;
  provider: string;
  started_at: number;
}

/** An attempt start of the rolling hour, with the variant its job asked for (null or absent: none): what the hourly counts are made of. */
export interface HourStart extends AttemptStart {
  variant?: string | null;
}

/**
 * A piece of a running job's answer, as the agent of attempt `attempt` was sure of it, the
 * `seq`-th told for the job (from 1). Kept only while the job runs (JobStore.appendDelta).
 */
export interface DeltaRow {
  job_id: string;
  seq: number;
  attempt: number;
  text: string;
}

/** A store event, published after the commit that made it. `from` is null for a job just created. */
export interface StoreEvent {
  job: JobRow;
  from: JobStatus | null;
  /**
   * The attempt a dispatch started, as the store wrote it; only on a move to dispatched. An
   * event of another instance's move carries it as read back from the attempts table (a
   * notice only names it), and `job` re-read (it may have moved on since).
   */
  start?: AttemptStart;
  /**
   * Another instance's move, heard through a notice (which any role that can connect may send)
   * and re-read: the row shows how the job is now, not that it moved now. Such an event is a
   * hint to look again, never counted or logged: the instance that made a move does that.
   */
  heard?: true;
}

/** Hourly caps over the rolling 60-minute window of attempt starts; null means no cap. */
export interface HourlyCaps {
  agent: number | null;
  provider: number | null;
  global: number | null;
  /** The cap of the variant the job asks for (Claim.variant), if it has one. */
  variant?: number | null;
}

/** What a dispatch round asks for: this job on this agent. */
export interface Claim {
  jobId: string;
  agentId: string;
  provider: string;
  /**
   * The caps of this agent, its provider and all: the store skips the claim when its start
   * would pass any of them, counting in its transaction. None given: no cap.
   */
  caps?: HourlyCaps;
  /** The variant the job asks for, as caps name it (`provider/variant`): its cap counts the starts of jobs asking for it. */
  variant?: string;
}
