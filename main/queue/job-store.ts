import type {
  AttemptEnd,
  AttemptRow,
  Claim,
  ConversationRow,
  Deletion,
  DeltaRow,
  HourStart,
  JobRow,
  JobView,
  Moved,
  QueuedJob,
  StoreEvent,
  SubmitRequest,
  SubmitResult,
  Viewer,
} from '../core/jobs.js';
import type { SentPrompt } from '../core/agent.js';
import type { Loss } from './job-moves.js';
import type { JobEvents } from './job-events.js';

/**
 * The only writer of job rows, behind one asynchronous port with two implementations:
 * SQLite in the data dir (sqlite/job-store.ts, the desktop) and PostgreSQL shared by several
 * instances (storage/postgres/job-store.ts). Each method that changes a job is one transaction
 * that reads the rows of the jobs it moves and writes what job-moves.ts plans from them: the
 * status only through the state machine (state-machine.ts), the webhook outbox row of every
 * move to a final status, and, after the commit, one StoreEvent per job moved. A promise
 * resolves only after its commit: acknowledged means on disk.
 */
export interface JobStore {
  // ---- moves ----

  /** Idempotency lookup, per-account queue limit, insert and idempotency record: one transaction. */
  submit(request: SubmitRequest): Promise<SubmitResult>;
  /**
   * Claims queued jobs for agents, all in one transaction (one fsync per dispatch round): each
   * claim that still finds its job queued moves it to dispatched with a new open attempt. Claims
   * whose job is no longer queued (cancelled, expired, or claimed by another instance) are
   * skipped, and so is a claim whose start would pass one of its caps: the attempts started in
   * the hour before `now` are counted inside the transaction, with the claims accepted before
   * it in the call, exactly even with several instances dispatching at once. Without caps,
   * nothing is counted. Returns the dispatched jobs, in claim order; each one's event carries
   * its `start`.
   */
  dispatch(claims: readonly Claim[], now: number): Promise<JobRow[]>;
  /**
   * Records how attempt `attempt` of job `id` ended and moves the job on. Null when that
   * attempt was already closed (the job was cancelled or expired meanwhile, and the agent's
   * late result is dropped).
   */
  endAttempt(id: string, attempt: number, end: AttemptEnd, now: number): Promise<Moved | null>;
  /** Queued/dispatched -> cancelled; a final job is returned as it is (from === job.status). Undefined: no such job. */
  cancel(id: string, now: number): Promise<Moved | undefined>;
  /** Expires every live job whose deadline has passed. */
  expireDue(now: number): Promise<Moved[]>;
  /**
   * The jobs this store's owner was running lost their agents (`loss`: a crash, or a clean
   * stop): each moves as job-moves.ts `planAgentLost` says. Those whose prompt went to a
   * conversation with an address stay dispatched, for their agent to collect
   * (sentUncollected); the others go back to the queue or fail. SQLite: every dispatched
   * job. PostgreSQL: those dispatched by this device (the store knows its device).
   */
  requeueDispatched(now: number, loss?: Loss): Promise<Moved[]>;
  /**
   * Keeps where the answer to attempt `attempt`'s prompt can be found again, as the agent
   * tells it (at the send, and again once the page shows the conversation's address), while
   * the attempt is open: a restart collects that answer instead of sending the prompt again.
   */
  recordSent(id: string, attempt: number, sent: SentPrompt): Promise<void>;
  /**
   * Deletes a finished job with its attempts and webhook delivery. A queued or dispatched job
   * is refused (it must be cancelled first, so no waiter and no agent is left with a job that
   * is gone). Undefined: no such job. Its idempotency entry is left to expire within 24 h: a
   * retry with that key after the deletion makes a new job.
   */
  delete(id: string): Promise<Deletion | undefined>;
  /** Deletes up to `limit` jobs that finished before `before`, oldest first; returns how many. */
  purgeFinishedBefore(before: number, limit: number): Promise<number>;
  /**
   * Retention: removes the prompt, response and files' bytes of up to `limit` jobs of `account` that
   * finished before `before`, oldest first; returns how many. Timings, attempts, usage figures,
   * the conversation and the files' descriptions stay.
   */
  pruneContent(before: number, now: number, limit: number, account?: string | null): Promise<number>;
  /** Drops idempotency entries older than the 24 h TTL. */
  pruneIdempotency(now: number): Promise<void>;

  // ---- the answer as it renders ----

  /**
   * Stores a piece of the answer attempt `attempt` of job `id` is sure of (the agent's
   * onDelta), after the pieces told before, while that attempt is the job's open one; told to
   * `events.onDelta` after the commit (PostgreSQL: and announced to the other instances).
   * Null, nothing written, when the attempt is no longer open (the job moved on: a late piece).
   */
  appendDelta(id: string, attempt: number, text: string): Promise<DeltaRow | null>;
  /** The pieces of a job's answer stored after `afterSeq`, in order. */
  deltasSince(id: string, afterSeq: number): Promise<DeltaRow[]>;
  /** Drops a job's pieces: its final move was made, and its response is the answer now. */
  dropDeltas(id: string): Promise<void>;
  /** Drops the pieces of every final job (left by a stop between a final move and its drop); returns how many rows. */
  dropFinishedDeltas(): Promise<number>;

  // ---- reads ----

  /** The whole job, its prompt too (the dashboard's job detail, a webhook's body). */
  get(id: string): Promise<JobRow | undefined>;
  /** The job as its caller is shown it, without the prompt: what every poll reads. */
  view(id: string): Promise<JobView | undefined>;
  attempts(id: string): Promise<AttemptRow[]>;
  /**
   * The bytes of file `position` of job `id` (its place in `attachments`), chunk after chunk
   * in order, each read on its own when asked for (STORED_CHUNK_BYTES at most): an attempt
   * writes them to a file without holding the whole file. Ends when the file's chunks end;
   * nothing when the job's files are gone (pruned or deleted).
   */
  fileChunks(id: string, position: number): AsyncIterable<Buffer>;
  conversation(ref: string): Promise<ConversationRow | undefined>;
  /** The newest jobs first, for the dashboard. */
  recent(limit: number): Promise<JobRow[]>;
  /** Queued jobs in dispatch order: priority DESC, created_at, id. */
  queuedInOrder(): Promise<QueuedJob[]>;
  queuedCount(viewer: Viewer): Promise<number>;
  /** 1-based place of a queued job among its account's queued jobs that compete with it for an agent, in dispatch order (queue-order.ts `competes`). */
  queuePosition(job: JobView): Promise<number>;
  oldestQueuedAt(viewer: Viewer): Promise<number | null>;
  /** The earliest deadline of a live job; null when none is live. */
  nextDeadline(): Promise<number | null>;
  /** Queued jobs of accounts that were disabled: to be cancelled. */
  queuedOfDisabledAccounts(): Promise<string[]>;
  /**
   * This owner's dispatched jobs left to collect (requeueDispatched): each with its open
   * attempt, whose prompt went to the conversation at `sent_conversation`.
   */
  sentUncollected(): Promise<{ job: JobRow; attempt: AttemptRow }[]>;
  /** Attempt starts after `since`, oldest first: the rolling hourly window is rebuilt from these. */
  attemptStartsSince(since: number): Promise<HourStart[]>;
  /** Per account, attempts started since `today` and in the hour after `hourAgo` (the operator's view). */
  startsByAccount(today: number, hourAgo: number): Promise<Map<string | null, { today: number; hour: number }>>;

  // ---- events ----

  /**
   * The store's own events: its commits, and (PostgreSQL) the other instances' moves once their
   * rows are read again. Long polls, event streams and the dashboard listen here, per job or
   * for all; nothing relays them.
   */
  readonly events: JobEvents;
  /** Hears every committed move (the scheduler, the hourly counts, webhooks, logs): `events.onEvent`. Returns unsubscribe. */
  onEvent(listener: (event: StoreEvent) => void): () => void;
  close(): Promise<void>;
}
