import type { AttemptEnd, AttemptOutcome, AttemptRow, AttemptStart, Claim, ConversationRow, FailureContext, JobRow, JobStatus, NewJob, StoreEvent } from '../core/jobs.js';
import { decideAfterFailure, NOT_COLLECTED, SERVICE_STOPPED } from './retry-policy.js';
import { isFinal, transition, type JobEvent } from './state-machine.js';
import { attachmentMeta, type AttachmentMeta } from '../core/attachments.js';

/**
 * Each job move planned once, for every engine: from the rows a move read in its transaction
 * (the job, its attempts) and the time, what it writes and the event it publishes. No I/O:
 * each job store applies a plan in the transaction that read the rows (the SQLite and
 * PostgreSQL stores under main/storage/), writing the job only where it still has the status
 * the plan started from, and closing an attempt only if it is still open.
 */

/** The columns a move may change; the others are the submission's (or retention's) alone. */
export const MOVED_COLUMNS = [
  'status',
  'attempts',
  'queue_ms',
  'run_ms',
  'agent_id',
  'provider',
  'response',
  'conversation_ref',
  'model_used',
  'error_code',
  'error_message',
  'finished_at',
] as const satisfies readonly (keyof JobRow)[];

/** The columns of a job row a move changes, and what they become. */
export type JobChanges = Partial<Pick<JobRow, (typeof MOVED_COLUMNS)[number]>>;

/** How a move ends an attempt. */
export interface AttemptClose {
  job_id: string;
  attempt: number;
  ended_at: number;
  outcome: AttemptOutcome;
  error_code: string | null;
  detail: string | null;
}

/** The webhook delivery of a job just made final (see WebhookOutbox): its first round is due at once. */
export interface DeliveryDue {
  job_id: string;
  /** The callback's origin: deliveries take turns per origin. */
  origin: string;
  /** '' for no account (Profile F, the admin token). */
  account_id: string;
  due_at: number;
}

/** A committed move as published: the job as the move leaves it, and the status it was in. */
export type MoveEvent = StoreEvent & { from: JobStatus };

/** What one move writes. */
export interface JobMove {
  /** What the job's row becomes, written only where it still has status `event.from`. */
  set: JobChanges;
  /**
   * Published once the transaction commits: the job as the move leaves it (the row with
   * `set`), and the attempt a dispatch starts (`event.start`), which is written too.
   */
  event: MoveEvent;
  /** The attempt the move ends: closed only if still open. */
  ends?: AttemptClose;
  /** The conversation an answer belongs to: made, or given its new address (created_at kept). */
  conversation?: ConversationRow;
  /** Due when the move makes a job with a callback_url final. */
  delivery?: DeliveryDue;
}

/**
 * A plan met a row that is no longer as it was read: the job left the status the move
 * started from, or the attempt it ends was closed. The engine rolls the move back. Rows are
 * read under the transaction's lock, so this is a store's bug, not a race to handle.
 */
export class StaleMove extends Error {
  constructor(jobId: string, what: string) {
    super(`Job ${jobId} moved under its move: ${what}`);
  }
}

/** The row a submission inserts: the job as given, its files described, nothing run yet. */
export function newJobRow(job: NewJob, files: readonly AttachmentMeta[] = []): JobRow {
  return {
    id: job.id,
    status: 'queued',
    prompt: job.prompt,
    req_provider: job.req_provider,
    req_agent_id: job.req_agent_id,
    conversation_in: job.conversation_in,
    priority: job.priority,
    timeout_ms: job.timeout_ms,
    deadline_at: job.deadline_at,
    max_attempts: job.max_attempts,
    callback_url: job.callback_url,
    metadata: job.metadata,
    created_at: job.created_at,
    attempts: 0,
    queue_ms: null,
    run_ms: 0,
    agent_id: null,
    provider: null,
    response: null,
    conversation_ref: null,
    error_code: null,
    error_message: null,
    finished_at: null,
    content_pruned_at: null,
    api_key_id: job.api_key_id,
    account_id: job.account_id ?? null,
    variant: job.variant ?? null,
    model_used: null,
    attachments: files.map(attachmentMeta),
  };
}

/** queued -> dispatched: the claim's agent starts the next attempt. */
export function planDispatch(job: JobRow, claim: Claim, now: number): JobMove {
  const attempts = job.attempts + 1;
  const start: AttemptStart = { job_id: job.id, attempt: attempts, agent_id: claim.agentId, provider: claim.provider, started_at: now };
  const set: JobChanges = { status: transition(job.status, 'dispatch'), attempts, agent_id: claim.agentId, provider: claim.provider };
  // The time in the queue is the first wait; a retry's wait is not added.
  if (job.queue_ms === null) set.queue_ms = now - job.created_at;
  return moving(job, set, {}, start);
}

/**
 * Attempt `attempt` of a dispatched job ended: an answer makes it succeeded, a failure sends
 * it back to the queue or fails it (the retry policy). Null when that attempt is no longer
 * the open one, or the job no longer dispatched: the agent's late result is dropped.
 */
export function planAttemptEnd(job: JobRow, attempts: readonly AttemptRow[], attempt: number, end: AttemptEnd, now: number): JobMove | null {
  const open = openAttempt(attempts);
  if (open?.attempt !== attempt || job.status !== 'dispatched') return null;
  if (end.outcome !== 'succeeded') return afterFailure(job, attempts, open, { outcome: end.outcome, code: end.errorCode, detail: end.detail ?? null }, now, end);
  const ended = close(job, open, { outcome: 'succeeded', code: null, detail: end.detail ?? null }, now);
  const set: JobChanges = {
    status: transition(job.status, 'succeed'),
    run_ms: ended.run_ms,
    response: end.response,
    conversation_ref: end.conversationRef,
    model_used: end.modelUsed ?? null,
    finished_at: now,
  };
  const conversation = {
    id: end.conversationRef,
    agent_id: open.agent_id,
    provider: open.provider,
    address: end.conversationAddress,
    created_at: now,
    updated_at: now,
    account_id: job.account_id,
  };
  return moving(job, set, { ends: ended.attempt, conversation, delivery: deliveryFor(job, now) });
}

/** Queued or dispatched -> cancelled (a running attempt ends cancelled); undefined for a final job, which stays as it is. */
export function planCancel(job: JobRow, attempts: readonly AttemptRow[], now: number): JobMove | undefined {
  if (isFinal(job.status)) return undefined;
  return settle(job, attempts, { event: 'cancel', code: null, message: null }, { outcome: 'cancelled', code: 'CANCELLED', detail: null }, now);
}

/** The job's deadline passed: queued or dispatched -> expired (a running attempt ends timed out). */
export function planExpiry(job: JobRow, attempts: readonly AttemptRow[], now: number): JobMove {
  return settle(
    job,
    attempts,
    { event: 'expire', code: 'JOB_TIMEOUT', message: 'The job deadline passed before it could finish.' },
    { outcome: 'timed_out', code: 'DEADLINE_EXCEEDED', detail: null },
    now,
  );
}

/** Why the agent running a job is gone: its process or device was lost, or the service stopped cleanly. */
export type Loss = 'lost' | 'stopped';

/**
 * The agent running a dispatched job is gone (`loss`). What its open attempt had done decides
 * (a prompt is never sent twice blindly):
 * - its prompt went, and the page gave the conversation an address: nothing moves. The job
 *   stays dispatched with its attempt open, for its agent to collect the answer by reopening
 *   the conversation when it runs again (Scheduler.start): undefined.
 * - its prompt went with no address to reopen: the attempt ends not collected, and the job
 *   fails rather than send the prompt again.
 * - its prompt had not gone: the attempt ends `agent_lost`, and the job goes back to the
 *   queue, or fails when attempts are used up; a clean stop's spends no attempt.
 * A dispatched job without an open attempt (it should have one) goes back to the queue.
 */
export function planAgentLost(job: JobRow, attempts: readonly AttemptRow[], now: number, loss: Loss = 'lost'): JobMove | undefined {
  const open = openAttempt(attempts);
  if (!open) return moving(job, { status: transition(job.status, 'retry') });
  if (open.sent_conversation !== null) return undefined;
  const why = loss === 'stopped' ? 'the service stopped' : 'its agent was lost';
  if (open.sent_turns_before !== null) {
    const detail = `the prompt went, but ${why} before the page gave its conversation an address to reopen.`;
    return afterFailure(job, attempts, open, { outcome: NOT_COLLECTED.outcome, code: NOT_COLLECTED.errorCode, detail }, now, { detail });
  }
  if (loss === 'lost') return afterFailure(job, attempts, open, { outcome: 'agent_lost', code: 'AGENT_LOST', detail: null }, now);
  const detail = 'service stopped before the prompt went: back to the queue, not counted as an attempt.';
  return afterFailure(job, attempts, open, { outcome: SERVICE_STOPPED.outcome, code: SERVICE_STOPPED.errorCode, detail }, now);
}

/** The delivery a job just made final is due, if it has a callback_url. */
export function deliveryFor(job: Pick<JobRow, 'id' | 'callback_url' | 'account_id'>, now: number): DeliveryDue | undefined {
  if (job.callback_url === null) return undefined;
  return { job_id: job.id, origin: new URL(job.callback_url).origin, account_id: job.account_id ?? '', due_at: now };
}

// ---- the pieces of a move ----

interface Ending {
  outcome: AttemptOutcome;
  code: string | null;
  detail: string | null;
}

/** What ends a job without an answer: its final status, and the error it carries. */
interface Settlement {
  event: Extract<JobEvent, 'cancel' | 'expire' | 'fail'>;
  code: string | null;
  message: string | null;
}

function openAttempt(attempts: readonly AttemptRow[]): AttemptRow | undefined {
  return attempts.find((a) => a.ended_at === null);
}

/** The attempt closed, and the job's run time with the attempt's time added. */
function close(job: JobRow, open: AttemptRow, how: Ending, now: number): { run_ms: number; attempt: AttemptClose } {
  return {
    run_ms: job.run_ms + Math.max(0, now - open.started_at),
    attempt: { job_id: open.job_id, attempt: open.attempt, ended_at: now, outcome: how.outcome, error_code: how.code, detail: how.detail },
  };
}

/** The open attempt failed: dispatched -> queued, or failed when the retry policy says so. */
function afterFailure(job: JobRow, attempts: readonly AttemptRow[], open: AttemptRow, how: Ending & { code: string }, now: number, context: FailureContext = {}): JobMove {
  const ended = close(job, open, how, now);
  const codes = [...attempts.filter((a) => a.ended_at !== null).flatMap((a) => a.error_code ?? []), how.code];
  const decision = decideAfterFailure(codes, job.max_attempts, context);
  if (decision.retry) return moving(job, { status: transition(job.status, 'retry'), run_ms: ended.run_ms }, { ends: ended.attempt });
  return finalMove(job, { event: 'fail', code: decision.code, message: decision.message }, now, ended);
}

/** A live job ends without an answer; a running attempt ends `attemptEnd`. */
function settle(job: JobRow, attempts: readonly AttemptRow[], how: Settlement, attemptEnd: Ending, now: number): JobMove {
  const open = job.status === 'dispatched' ? openAttempt(attempts) : undefined;
  return finalMove(job, how, now, open && close(job, open, attemptEnd, now));
}

function finalMove(job: JobRow, how: Settlement, now: number, ended: ReturnType<typeof close> | undefined): JobMove {
  const set: JobChanges = { status: transition(job.status, how.event), error_code: how.code, error_message: how.message, finished_at: now };
  if (ended) set.run_ms = ended.run_ms;
  return moving(job, set, { ends: ended?.attempt, delivery: deliveryFor(job, now) });
}

/** The move of `job` that sets `set`, with its other writes; its event carries the job as the move leaves it. */
function moving(job: JobRow, set: JobChanges, writes: Omit<JobMove, 'set' | 'event'> = {}, start?: AttemptStart): JobMove {
  const after = { ...job, ...set };
  return { set, event: start ? { job: after, from: job.status, start } : { job: after, from: job.status }, ...writes };
}
