import type { Db } from './db.js';
import { IDEMPOTENCY_TTL_MS } from '../../queue/idempotency.js';
import type { JobStore } from '../../queue/job-store.js';
import { CapCount, capsAsked, capWindowStart, type StartCount } from '../../queue/cap-count.js';
import { AccountQueues, type QueueKey } from '../../queue/queue-order.js';
import { decideAfterFailure } from '../../queue/retry-policy.js';
import { isFinal, transition, type JobEvent } from '../../queue/state-machine.js';
import { GroupCommit } from './group-commit.js';
import {
  EVERY_ACCOUNT,
  type AttemptEnd,
  type AttemptStart,
  type AttemptOutcome,
  type AttemptRow,
  type Claim,
  type ConversationRow,
  type Deletion,
  type FailureContext,
  type IdempotencyClaim,
  type JobRow,
  type Moved,
  type QueuedJob,
  type StoreEvent,
  type SubmitRequest,
  type SubmitResult,
  type Viewer,
} from '../../core/jobs.js';
import type { SqliteWebhookOutbox } from './outbox.js';

/** What ends a job without an answer: its final status, and the error it carries. */
interface Settlement {
  event: Extract<JobEvent, 'cancel' | 'expire' | 'fail'>;
  errorCode: string | null;
  errorMessage: string | null;
}

const CANCELLED: Settlement = { event: 'cancel', errorCode: null, errorMessage: null };
const EXPIRED: Settlement = { event: 'expire', errorCode: 'JOB_TIMEOUT', errorMessage: 'The job deadline passed before it could finish.' };

/**
 * The job store of one machine, in the data dir's SQLite database (see job-store.ts for the
 * port). Every method runs synchronously inside; the promises are the port's. Submissions
 * arriving in one turn of the event loop share one transaction (GroupCommit): with
 * synchronous=FULL each commit waits for an fsync, paid once per group. The other moves are
 * one immediate transaction each.
 *
 * Each kind of job move is one function below (`dispatchJob`, `succeed`, `afterFailedAttempt`,
 * `settle`, `requeue`): it goes through the state machine, updates the row, adds the webhook
 * delivery of a final job, and ends in `moved`, which keeps the in-memory queue order in step
 * and holds the event until the transaction commits.
 */
export class SqliteJobStore implements JobStore {
  /** The queued jobs in dispatch order, per account: the queue limit and queue_position read it. */
  private order: AccountQueues;
  private readonly commits: GroupCommit;
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  /** Events of the transaction under way, published once it commits. */
  private unpublished: StoreEvent[] = [];
  private readonly s;

  constructor(
    private readonly db: Db,
    private readonly outbox: SqliteWebhookOutbox,
  ) {
    this.commits = new GroupCommit(db, () => this.recount());
    this.s = {
      insert: db.prepare(
        `INSERT INTO jobs (id, status, prompt, req_provider, req_agent_id, conversation_in, priority, timeout_ms,
           deadline_at, max_attempts, callback_url, metadata, created_at, api_key_id, account_id, variant)
         VALUES (@id, 'queued', @prompt, @req_provider, @req_agent_id, @conversation_in, @priority, @timeout_ms,
           @deadline_at, @max_attempts, @callback_url, @metadata, @created_at, @api_key_id, @account_id, @variant)`,
      ),
      get: db.prepare(`SELECT * FROM jobs WHERE id = ?`),
      queuedKeys: db.prepare(`SELECT id, priority, created_at, account_id, req_provider, req_agent_id FROM jobs WHERE status = 'queued'`),
      queuedInOrder: db.prepare(
        `SELECT id, req_provider, req_agent_id, conversation_in, account_id, variant FROM jobs
         WHERE status = 'queued' ORDER BY priority DESC, created_at, id`,
      ),
      oldestQueued: db.prepare(`SELECT MIN(created_at) FROM jobs WHERE status = 'queued'`).pluck(),
      oldestQueuedOf: db.prepare(`SELECT MIN(created_at) FROM jobs WHERE status = 'queued' AND account_id IS ?`).pluck(),
      setStatus: db.prepare(`UPDATE jobs SET status = ? WHERE id = ?`),
      dispatch: db.prepare(
        `UPDATE jobs SET status = 'dispatched', attempts = attempts + 1, agent_id = @agent_id, provider = @provider,
           queue_ms = COALESCE(queue_ms, @now - created_at) WHERE id = @id`,
      ),
      addAttempt: db.prepare(
        `INSERT INTO attempts (job_id, attempt, agent_id, provider, started_at) VALUES (?, ?, ?, ?, ?)`,
      ),
      openAttempt: db.prepare(`SELECT * FROM attempts WHERE job_id = ? AND ended_at IS NULL`),
      closeAttempt: db.prepare(
        `UPDATE attempts SET ended_at = @now, outcome = @outcome, error_code = @error_code, detail = @detail
         WHERE job_id = @job_id AND attempt = @attempt AND ended_at IS NULL`,
      ),
      addRunTime: db.prepare(`UPDATE jobs SET run_ms = run_ms + ? WHERE id = ?`),
      succeed: db.prepare(
        `UPDATE jobs SET status = 'succeeded', response = @response, conversation_ref = @conversation_ref,
           model_used = @model_used, finished_at = @now WHERE id = @id`,
      ),
      settle: db.prepare(
        `UPDATE jobs SET status = @status, error_code = @error_code, error_message = @error_message,
           finished_at = @now WHERE id = @id`,
      ),
      saveConversation: db.prepare(
        `INSERT INTO conversations (id, agent_id, provider, address, created_at, updated_at, account_id)
         VALUES (@id, @agent_id, @provider, @address, @now, @now, @account_id)
         ON CONFLICT (id) DO UPDATE SET address = excluded.address, updated_at = excluded.updated_at`,
      ),
      attemptsOf: db.prepare(`SELECT * FROM attempts WHERE job_id = ? ORDER BY attempt`),
      errorCodesOf: db.prepare(`SELECT error_code FROM attempts WHERE job_id = ? AND ended_at IS NOT NULL ORDER BY attempt`).pluck(),
      due: db.prepare(`SELECT id FROM jobs WHERE status IN ('queued', 'dispatched') AND deadline_at <= ?`).pluck(),
      nextDeadline: db.prepare(`SELECT MIN(deadline_at) FROM jobs WHERE status IN ('queued', 'dispatched')`).pluck(),
      dispatchedIds: db.prepare(`SELECT id FROM jobs WHERE status = 'dispatched'`).pluck(),
      conversation: db.prepare(`SELECT * FROM conversations WHERE id = ?`),
      // Job ids begin with their creation time, so the primary key gives the newest first.
      recent: db.prepare(`SELECT * FROM jobs ORDER BY id DESC LIMIT ?`),
      startsByAccount: db.prepare(
        `SELECT j.account_id AS account_id, SUM(a.started_at >= @today) AS today, SUM(a.started_at > @hourAgo) AS hour
         FROM attempts a JOIN jobs j ON j.id = a.job_id WHERE a.started_at >= MIN(@today, @hourAgo) GROUP BY j.account_id`,
      ),
      startsSince: db.prepare(`SELECT job_id, attempt, agent_id, provider, started_at FROM attempts WHERE started_at > ? ORDER BY started_at, job_id, attempt`),
      startsPerAgent: db.prepare(`SELECT agent_id, provider, COUNT(*) AS n FROM attempts WHERE started_at > ? GROUP BY agent_id, provider`),
      // A job's webhook delivery and its attempt log go with it (ON DELETE CASCADE).
      deleteJobs: db.prepare(`DELETE FROM jobs WHERE id IN (SELECT value FROM json_each(?))`),
      deleteAttempts: db.prepare(`DELETE FROM attempts WHERE job_id IN (SELECT value FROM json_each(?))`),
      finishedBefore: db.prepare(`SELECT id FROM jobs WHERE finished_at < ? ORDER BY finished_at LIMIT ?`).pluck(),
      unprunedBefore: db
        .prepare(
          `SELECT id FROM jobs WHERE finished_at < ? AND content_pruned_at IS NULL AND account_id IS ? ORDER BY finished_at LIMIT ?`,
        )
        .pluck(),
      queuedOfDisabledAccounts: db
        .prepare(`SELECT j.id FROM jobs j JOIN accounts a ON a.id = j.account_id WHERE j.status = 'queued' AND a.disabled_at IS NOT NULL`)
        .pluck(),
      prune: db.prepare(
        `UPDATE jobs SET prompt = '', response = NULL, content_pruned_at = ? WHERE id IN (SELECT value FROM json_each(?))`,
      ),
      findKey: db.prepare(`SELECT request_hash, job_id FROM idempotency WHERE key = ? AND created_at > ?`),
      rememberKey: db.prepare(
        `INSERT INTO idempotency (key, request_hash, job_id, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET request_hash = excluded.request_hash, job_id = excluded.job_id,
           created_at = excluded.created_at`,
      ),
      pruneKeys: db.prepare(`DELETE FROM idempotency WHERE created_at <= ?`),
    };
    this.order = new AccountQueues(this.s.queuedKeys.all() as QueueKey[]);
  }

  // ---- moves ----------------------------------------------------------------------------

  async submit(request: SubmitRequest): Promise<SubmitResult> {
    const result = await this.commits.run(() => this.submitInTransaction(request));
    if (result.kind === 'created') this.publish({ job: result.job, from: null });
    return result;
  }

  async dispatch(claims: readonly Claim[], now: number): Promise<JobRow[]> {
    return this.transaction(() => {
      // The immediate transaction holds every other writer off: the count stays exact.
      const caps = capsAsked(claims) ? new CapCount(this.s.startsPerAgent.all(capWindowStart(now)) as StartCount[]) : undefined;
      const dispatched: JobRow[] = [];
      for (const claim of claims) {
        const job = this.get_(claim.jobId);
        if (job?.status === 'queued' && (caps?.take(claim) ?? true)) dispatched.push(this.dispatchJob(job, claim, now).job);
      }
      return dispatched;
    });
  }

  async endAttempt(id: string, attempt: number, end: AttemptEnd, now: number): Promise<Moved | null> {
    return this.transaction(() => {
      const job = this.get_(id);
      const open = this.openAttempt(id);
      if (!job || !open || open.attempt !== attempt || job.status !== 'dispatched') return null;
      return end.outcome === 'succeeded' ? this.succeed(job, open, end, now) : this.afterFailedAttempt(job, open, end.outcome, end.errorCode, now, end);
    });
  }

  async cancel(id: string, now: number): Promise<Moved | undefined> {
    return this.transaction(() => {
      const job = this.get_(id);
      if (!job) return undefined;
      if (isFinal(job.status)) return { job, from: job.status };
      return this.settle(job, CANCELLED, now, { outcome: 'cancelled', errorCode: 'CANCELLED' });
    });
  }

  async expireDue(now: number): Promise<Moved[]> {
    return this.transaction(() =>
      (this.s.due.all(now) as string[]).map((id) => this.settle(this.must(id), EXPIRED, now, { outcome: 'timed_out', errorCode: 'DEADLINE_EXCEEDED' })),
    );
  }

  async requeueDispatched(now: number): Promise<Moved[]> {
    return this.transaction(() =>
      (this.s.dispatchedIds.all() as string[]).map((id) => {
        const job = this.must(id);
        const open = this.openAttempt(id);
        // Defensive: a dispatched job always has an open attempt; without one, requeue it.
        return open ? this.afterFailedAttempt(job, open, 'agent_lost', 'AGENT_LOST', now) : this.requeue(job);
      }),
    );
  }

  async delete(id: string): Promise<Deletion | undefined> {
    return this.transaction((): Deletion | undefined => {
      const job = this.get_(id);
      if (!job) return undefined;
      if (!isFinal(job.status)) return { deleted: false, status: job.status };
      this.deleteRows([id]);
      return { deleted: true };
    });
  }

  async purgeFinishedBefore(before: number, limit: number): Promise<number> {
    return this.transaction(() => {
      const ids = this.s.finishedBefore.all(before, limit) as string[];
      if (ids.length > 0) this.deleteRows(ids);
      return ids.length;
    });
  }

  async pruneContent(before: number, now: number, limit: number, account: string | null = null): Promise<number> {
    return this.transaction(() => {
      const ids = this.s.unprunedBefore.all(before, account, limit) as string[];
      if (ids.length > 0) this.s.prune.run(now, JSON.stringify(ids));
      return ids.length;
    });
  }

  async pruneIdempotency(now: number): Promise<void> {
    this.s.pruneKeys.run(now - IDEMPOTENCY_TTL_MS);
  }

  // ---- reads ----------------------------------------------------------------------------

  async get(id: string): Promise<JobRow | undefined> {
    return this.get_(id);
  }

  async attempts(id: string): Promise<AttemptRow[]> {
    return this.s.attemptsOf.all(id) as AttemptRow[];
  }

  async conversation(ref: string): Promise<ConversationRow | undefined> {
    return this.s.conversation.get(ref) as ConversationRow | undefined;
  }

  async recent(limit: number): Promise<JobRow[]> {
    return this.s.recent.all(limit) as JobRow[];
  }

  async queuedInOrder(): Promise<QueuedJob[]> {
    return this.s.queuedInOrder.all() as QueuedJob[];
  }

  /** From memory: the 1 000-job limit is checked on every submission. */
  async queuedCount(viewer: Viewer): Promise<number> {
    return this.countQueued(viewer);
  }

  async queuePosition(job: JobRow): Promise<number> {
    return this.order.position(job);
  }

  async oldestQueuedAt(viewer: Viewer): Promise<number | null> {
    return (viewer === EVERY_ACCOUNT ? this.s.oldestQueued.get() : this.s.oldestQueuedOf.get(viewer)) as number | null;
  }

  async nextDeadline(): Promise<number | null> {
    return this.s.nextDeadline.get() as number | null;
  }

  async queuedOfDisabledAccounts(): Promise<string[]> {
    return this.s.queuedOfDisabledAccounts.all() as string[];
  }

  async attemptStartsSince(since: number): Promise<AttemptStart[]> {
    return this.s.startsSince.all(since) as AttemptStart[];
  }

  async startsByAccount(today: number, hourAgo: number): Promise<Map<string | null, { today: number; hour: number }>> {
    const rows = this.s.startsByAccount.all({ today, hourAgo }) as { account_id: string | null; today: number; hour: number }[];
    return new Map(rows.map((r) => [r.account_id, { today: r.today, hour: r.hour }]));
  }

  // ---- events ---------------------------------------------------------------------------

  onEvent(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Waits for the submissions already handed to the group commit; the database is its owner's to close. */
  async close(): Promise<void> {
    await this.commits.run(() => {});
    this.listeners.clear();
  }

  // ---- one function per move --------------------------------------------------------------

  private submitInTransaction({ job, idempotency, queuedLimit, refuseNew }: SubmitRequest): SubmitResult {
    const found = idempotency && this.findByKey(idempotency, job.created_at);
    if (found) return found;
    if (this.countQueued(job.account_id ?? null) >= queuedLimit) return { kind: 'queue_full' };
    if (refuseNew) return { kind: 'refused' };
    const row = { ...job, account_id: job.account_id ?? null, variant: job.variant ?? null };
    this.s.insert.run(row);
    this.order.add(row);
    if (idempotency) this.s.rememberKey.run(idempotency.key, idempotency.hash, job.id, job.created_at);
    return { kind: 'created', job: this.get_(job.id)! };
  }

  /** The job an idempotency entry stands for, or its conflict; undefined: make the job. */
  private findByKey(claim: IdempotencyClaim, now: number): SubmitResult | undefined {
    const seen = this.s.findKey.get(claim.key, now - claim.ttlMs) as { request_hash: string; job_id: string } | undefined;
    if (!seen) return undefined;
    if (seen.request_hash !== claim.hash && claim.onOtherHash === 'conflict') return { kind: 'conflict' };
    const original = seen.request_hash === claim.hash ? this.get_(seen.job_id) : undefined;
    if (!original) return undefined;
    // A repeat found starts its window again, for the next repeat.
    if (claim.onOtherHash === 'replace') this.s.rememberKey.run(claim.key, claim.hash, original.id, now);
    return { kind: 'found', job: original };
  }

  /** queued -> dispatched, with a new open attempt. */
  private dispatchJob(job: JobRow, claim: Claim, now: number): Moved {
    transition(job.status, 'dispatch');
    const start: AttemptStart = { job_id: job.id, attempt: job.attempts + 1, agent_id: claim.agentId, provider: claim.provider, started_at: now };
    this.s.dispatch.run({ id: job.id, agent_id: claim.agentId, provider: claim.provider, now });
    this.s.addAttempt.run(start.job_id, start.attempt, start.agent_id, start.provider, start.started_at);
    return this.moved(job, start);
  }

  /** dispatched -> succeeded: the attempt closes, the conversation is saved, the webhook is due. */
  private succeed(job: JobRow, open: AttemptRow, end: Extract<AttemptEnd, { outcome: 'succeeded' }>, now: number): Moved {
    transition(job.status, 'succeed');
    this.closeAttempt(open, { outcome: 'succeeded', errorCode: null }, now);
    this.s.saveConversation.run({
      id: end.conversationRef,
      agent_id: open.agent_id,
      provider: open.provider,
      address: end.conversationAddress,
      now,
      account_id: job.account_id,
    });
    this.s.succeed.run({ id: job.id, response: end.response, conversation_ref: end.conversationRef, model_used: end.modelUsed ?? null, now });
    this.outbox.enqueue(job, now);
    return this.moved(job);
  }

  /** dispatched -> queued, or failed when the retry policy says so. */
  private afterFailedAttempt(job: JobRow, open: AttemptRow, outcome: AttemptOutcome, errorCode: string, now: number, context: FailureContext = {}): Moved {
    this.closeAttempt(open, { outcome, errorCode, detail: context.detail ?? null }, now);
    const decision = decideAfterFailure(this.s.errorCodesOf.all(job.id) as string[], job.max_attempts, context);
    if (decision.retry) return this.requeue(job);
    return this.settle(job, { event: 'fail', errorCode: decision.code, errorMessage: decision.message }, now);
  }

  /** dispatched -> queued. */
  private requeue(job: JobRow): Moved {
    this.s.setStatus.run(transition(job.status, 'retry'), job.id);
    return this.moved(job);
  }

  /**
   * A live job ends without an answer (cancelled, expired, failed); a running attempt is
   * closed with `attemptEnd` (a failed job's attempt was closed by its caller already).
   */
  private settle(job: JobRow, how: Settlement, now: number, attemptEnd?: { outcome: AttemptOutcome; errorCode: string }): Moved {
    const status = transition(job.status, how.event);
    const open = attemptEnd && job.status === 'dispatched' ? this.openAttempt(job.id) : undefined;
    if (open) this.closeAttempt(open, attemptEnd!, now);
    this.s.settle.run({ id: job.id, status, error_code: how.errorCode, error_message: how.errorMessage, now });
    this.outbox.enqueue(job, now);
    return this.moved(job);
  }

  /**
   * The end of every move: the queue order follows the job in or out of `queued`, and its
   * event (with the attempt a dispatch started) waits for the commit.
   */
  private moved(before: JobRow, start?: AttemptStart): Moved {
    const job = this.get_(before.id)!;
    if (before.status === 'queued' && job.status !== 'queued') this.order.remove(before);
    else if (before.status !== 'queued' && job.status === 'queued') this.order.add(job);
    this.unpublished.push(start ? { job, from: before.status, start } : { job, from: before.status });
    return { job, from: before.status };
  }

  // ---- pieces -----------------------------------------------------------------------------

  private closeAttempt(open: AttemptRow, end: { outcome: AttemptOutcome; errorCode: string | null; detail?: string | null }, now: number): void {
    this.s.closeAttempt.run({ job_id: open.job_id, attempt: open.attempt, now, outcome: end.outcome, error_code: end.errorCode, detail: end.detail ?? null });
    this.s.addRunTime.run(Math.max(0, now - open.started_at), open.job_id);
  }

  private openAttempt(id: string): AttemptRow | undefined {
    return this.s.openAttempt.get(id) as AttemptRow | undefined;
  }

  private deleteRows(ids: string[]): void {
    const list = JSON.stringify(ids);
    this.s.deleteAttempts.run(list);
    this.s.deleteJobs.run(list);
  }

  private countQueued(viewer: Viewer): number {
    return viewer === EVERY_ACCOUNT ? this.order.total() : this.order.size(viewer);
  }

  /**
   * One immediate transaction, then the events of its moves. If it fails, its events are
   * dropped and the in-memory queue order, which may have moved ahead of the rolled-back
   * rows, is read again.
   */
  private transaction<T>(work: () => T): T {
    let result: T;
    try {
      result = this.db.transaction(work).immediate();
    } catch (error) {
      this.unpublished = [];
      this.recount();
      throw error;
    }
    const events = this.unpublished;
    this.unpublished = [];
    for (const event of events) this.publish(event);
    return result;
  }

  private publish(event: StoreEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }

  private recount(): void {
    this.order = new AccountQueues(this.s.queuedKeys.all() as QueueKey[]);
  }

  private get_(id: string): JobRow | undefined {
    return this.s.get.get(id) as JobRow | undefined;
  }

  private must(id: string): JobRow {
    const job = this.get_(id);
    if (!job) throw new Error(`No job ${id}`);
    return job;
  }
}
