import type { Db } from '../db.js';
import { AccountQueues, type QueueKey } from '../queue-order.js';
import { isFinal, transition } from '../state-machine.js';
import { decideAfterFailure } from '../retry-policy.js';
import type { JobFailureCode } from '../../core/errors.js';
import {
  EVERY_ACCOUNT,
  type AttemptEnd,
  type AttemptOutcome,
  type AttemptRow,
  type ConversationRow,
  type Deletion,
  type FailureContext,
  type JobRow,
  type JobStatus,
  type Moved,
  type NewJob,
  type QueuedJob,
  type Viewer,
} from '../../core/jobs.js';
import type { WebhookOutbox } from '../../webhooks/outbox.js';

/**
 * The only writer of job rows. Each method that changes a job is one SQLite transaction
 * and moves the status only through the state machine. Every move to a final status adds
 * the job's webhook delivery to the outbox in that same transaction.
 */
export class SqliteJobStore {
  private order: AccountQueues;
  private readonly s;

  constructor(
    private readonly db: Db,
    private readonly outbox: WebhookOutbox,
  ) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO jobs (id, status, prompt, req_provider, req_agent_id, conversation_in, priority, timeout_ms,
           deadline_at, max_attempts, callback_url, metadata, created_at, api_key_id, account_id)
         VALUES (@id, 'queued', @prompt, @req_provider, @req_agent_id, @conversation_in, @priority, @timeout_ms,
           @deadline_at, @max_attempts, @callback_url, @metadata, @created_at, @api_key_id, @account_id)`,
      ),
      get: db.prepare(`SELECT * FROM jobs WHERE id = ?`),
      queuedKeys: db.prepare(`SELECT id, priority, created_at, account_id FROM jobs WHERE status = 'queued'`),
      queuedInOrder: db.prepare(
        `SELECT id, req_provider, req_agent_id, conversation_in, account_id FROM jobs
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
           finished_at = @now WHERE id = @id`,
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
      startsSince: db.prepare(`SELECT agent_id, provider, started_at FROM attempts WHERE started_at > ? ORDER BY started_at`),
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
    };
    this.order = new AccountQueues(this.s.queuedKeys.all() as QueueKey[]);
  }

  /** Jobs of `viewer` queued now (from memory: the 1 000-job limit is checked on every submission). */
  queuedCount(viewer: Viewer): number {
    return viewer === EVERY_ACCOUNT ? this.order.total() : this.order.size(viewer);
  }

  /** Jobs queued now, every account's. */
  queuedTotal(): number {
    return this.queuedCount(EVERY_ACCOUNT);
  }

  /** Re-reads the queue's order after a rolled-back write, or after another process changed jobs. */
  recount(): void {
    this.order = new AccountQueues(this.s.queuedKeys.all() as QueueKey[]);
  }

  /** Queued jobs of accounts that were disabled: to be cancelled. */
  queuedOfDisabledAccounts(): string[] {
    return this.s.queuedOfDisabledAccounts.all() as string[];
  }

  /** Adds a queued job. Callers run it inside their own transaction (see GroupCommit). */
  insert(job: NewJob): JobRow {
    const row = { ...job, account_id: job.account_id ?? null };
    this.s.insert.run(row);
    this.order.add(row);
    return this.get(job.id)!;
  }

  get(id: string): JobRow | undefined {
    return this.s.get.get(id) as JobRow | undefined;
  }

  queuedInOrder(): QueuedJob[] {
    return this.s.queuedInOrder.all() as QueuedJob[];
  }

  /** 1-based place of a queued job in dispatch order among its account's (decisions.md `queue_position`). */
  queuePosition(job: JobRow): number {
    return this.order.position(job);
  }

  oldestQueuedAt(viewer: Viewer): number | null {
    return (viewer === EVERY_ACCOUNT ? this.s.oldestQueued.get() : this.s.oldestQueuedOf.get(viewer)) as number | null;
  }

  attempts(id: string): AttemptRow[] {
    return this.s.attemptsOf.all(id) as AttemptRow[];
  }

  /** Attempt starts after `since`: the rolling hourly window is rebuilt from these. */
  attemptStartsSince(since: number): { agent_id: string; provider: string; started_at: number }[] {
    return this.s.startsSince.all(since) as { agent_id: string; provider: string; started_at: number }[];
  }

  /** Per account, attempts started since `today` and in the hour after `hourAgo` (the operator's view). */
  startsByAccount(today: number, hourAgo: number): Map<string | null, { today: number; hour: number }> {
    const rows = this.s.startsByAccount.all({ today, hourAgo }) as { account_id: string | null; today: number; hour: number }[];
    return new Map(rows.map((r) => [r.account_id, { today: r.today, hour: r.hour }]));
  }

  /** The newest jobs first, for the dashboard. */
  recent(limit: number): JobRow[] {
    return this.s.recent.all(limit) as JobRow[];
  }

  conversation(ref: string): ConversationRow | undefined {
    return this.s.conversation.get(ref) as ConversationRow | undefined;
  }

  nextDeadline(): number | null {
    return this.s.nextDeadline.get() as number | null;
  }

  /** Runs several of the methods below as one transaction (one commit, one fsync). */
  batch<T>(work: () => T): T {
    return this.tx(work);
  }

  dispatch(id: string, agentId: string, provider: string, now: number): JobRow {
    return this.tx(() => {
      const job = this.must(id);
      transition(job.status, 'dispatch');
      this.s.dispatch.run({ id, agent_id: agentId, provider, now });
      this.s.addAttempt.run(id, job.attempts + 1, agentId, provider, now);
      this.order.remove(job);
      return this.get(id)!;
    });
  }

  /**
   * Records how attempt `attempt` of job `id` ended and moves the job on. Returns null
   * when that attempt was already closed (the job was cancelled or expired meanwhile and
   * the agent's late result is dropped).
   */
  endAttempt(id: string, attempt: number, end: AttemptEnd, now: number): Moved | null {
    return this.tx((): Moved | null => {
      const job = this.must(id);
      const open = this.s.openAttempt.get(id) as AttemptRow | undefined;
      if (!open || open.attempt !== attempt || job.status !== 'dispatched') return null;
      if (end.outcome === 'succeeded') {
        this.s.closeAttempt.run({ job_id: id, attempt, now, outcome: 'succeeded', error_code: null, detail: null });
        this.s.addRunTime.run(now - open.started_at, id);
        transition(job.status, 'succeed');
        this.s.saveConversation.run({
          id: end.conversationRef,
          agent_id: open.agent_id,
          provider: open.provider,
          address: end.conversationAddress,
          now,
          account_id: job.account_id,
        });
        this.s.succeed.run({ id, response: end.response, conversation_ref: end.conversationRef, now });
        this.outbox.enqueue(job, now);
      } else if (this.endAttemptInTransaction(job, open, end.outcome, end.errorCode, now, end) === 'queued') {
        this.order.add(job);
      }
      return { job: this.get(id)!, from: job.status };
    });
  }

  /** DELETE: queued and dispatched jobs become cancelled at once; final jobs are left as they are. */
  cancel(id: string, now: number): Moved | undefined {
    return this.tx((): Moved | undefined => {
      const job = this.get(id);
      if (!job) return undefined;
      if (job.status !== 'queued' && job.status !== 'dispatched') return { job, from: job.status };
      this.closeOpenAttempt(job, 'cancelled', 'CANCELLED', now);
      this.s.settle.run({ id, status: transition(job.status, 'cancel'), error_code: null, error_message: null, now });
      this.outbox.enqueue(job, now);
      if (job.status === 'queued') this.order.remove(job);
      return { job: this.get(id)!, from: job.status };
    });
  }

  /** Expires every live job whose deadline has passed. */
  expireDue(now: number): Moved[] {
    return this.tx((): Moved[] => {
      const moved: Moved[] = [];
      for (const id of this.s.due.all(now) as string[]) {
        const job = this.must(id);
        this.closeOpenAttempt(job, 'timed_out', 'DEADLINE_EXCEEDED', now);
        this.s.settle.run({
          id,
          status: transition(job.status, 'expire'),
          error_code: 'JOB_TIMEOUT',
          error_message: 'The job deadline passed before it could finish.',
          now,
        });
        this.outbox.enqueue(job, now);
        if (job.status === 'queued') this.order.remove(job);
        moved.push({ job: this.get(id)!, from: job.status });
      }
      return moved;
    });
  }

  /**
   * Deletes a finished job with its attempts and webhook delivery. A queued or dispatched
   * job is refused: it must be cancelled first, so no caller waiting on it and no agent
   * running it is left with a job that is gone. Undefined when there is no such job.
   *
   * Its idempotency entry is left to expire (within 24 h): it holds only the id, and a
   * retry with that key after the deletion makes a new job.
   */
  delete(id: string): Deletion | undefined {
    return this.tx((): Deletion | undefined => {
      const job = this.get(id);
      if (!job) return undefined;
      if (!isFinal(job.status)) return { deleted: false, status: job.status };
      this.deleteRows([id]);
      return { deleted: true };
    });
  }

  /** Deletes up to `limit` jobs that finished before `before`, oldest first; returns how many. */
  purgeFinishedBefore(before: number, limit: number): number {
    return this.tx(() => {
      const ids = this.s.finishedBefore.all(before, limit) as string[];
      if (ids.length > 0) this.deleteRows(ids);
      return ids.length;
    });
  }

  /**
   * Retention: removes the prompt and response of up to `limit` jobs that finished before
   * `before`, oldest first; returns how many. Timings, attempts, usage figures and the
   * conversation stay.
   */
  pruneContent(before: number, now: number, limit: number, account: string | null = null): number {
    return this.tx(() => {
      const ids = this.s.unprunedBefore.all(before, account, limit) as string[];
      if (ids.length > 0) this.s.prune.run(now, JSON.stringify(ids));
      return ids.length;
    });
  }

  /**
   * After a crash (or at shutdown), every job still `dispatched` lost its agent: its open
   * attempt ends as `agent_lost` and the job goes back to the queue, or fails when its
   * attempts are used up.
   */
  requeueDispatched(now: number): Moved[] {
    return this.tx((): Moved[] => {
      const moved: Moved[] = [];
      for (const id of this.s.dispatchedIds.all() as string[]) {
        const job = this.must(id);
        const open = this.s.openAttempt.get(id) as AttemptRow | undefined;
        if (!open) {
          // Defensive: a dispatched job always has an open attempt; without one, requeue it.
          this.s.setStatus.run(transition(job.status, 'retry'), id);
          this.order.add(job);
        } else {
          const result = this.endAttemptInTransaction(job, open, 'agent_lost', 'AGENT_LOST', now);
          if (result === 'queued') this.order.add(job);
        }
        moved.push({ job: this.get(id)!, from: job.status });
      }
      return moved;
    });
  }

  private deleteRows(ids: string[]): void {
    const list = JSON.stringify(ids);
    this.s.deleteAttempts.run(list);
    this.s.deleteJobs.run(list);
  }

  private endAttemptInTransaction(
    job: JobRow,
    open: AttemptRow,
    outcome: AttemptOutcome,
    errorCode: string,
    now: number,
    context: FailureContext = {},
  ): JobStatus {
    this.s.closeAttempt.run({ job_id: job.id, attempt: open.attempt, now, outcome, error_code: errorCode, detail: context.detail ?? null });
    this.s.addRunTime.run(Math.max(0, now - open.started_at), job.id);
    const decision = decideAfterFailure(this.s.errorCodesOf.all(job.id) as string[], job.max_attempts, context);
    if (decision.retry) {
      const to = transition(job.status, 'retry');
      this.s.setStatus.run(to, job.id);
      return to;
    }
    this.settleFailed(job, decision.code, decision.message, now);
    return 'failed';
  }

  private settleFailed(job: JobRow, code: JobFailureCode, message: string, now: number): void {
    this.s.settle.run({ id: job.id, status: transition(job.status, 'fail'), error_code: code, error_message: message, now });
    this.outbox.enqueue(job, now);
  }

  private closeOpenAttempt(job: JobRow, outcome: AttemptOutcome, errorCode: string, now: number): void {
    if (job.status !== 'dispatched') return;
    const open = this.s.openAttempt.get(job.id) as AttemptRow | undefined;
    if (!open) return;
    this.s.closeAttempt.run({ job_id: job.id, attempt: open.attempt, now, outcome, error_code: errorCode, detail: null });
    this.s.addRunTime.run(Math.max(0, now - open.started_at), job.id);
  }

  /**
   * One immediate transaction. If it fails, the in-memory queue order may have moved
   * ahead of the rolled-back rows: re-read it.
   */
  private tx<T>(work: () => T): T {
    try {
      return this.db.transaction(work).immediate();
    } catch (error) {
      this.recount();
      throw error;
    }
  }

  private must(id: string): JobRow {
    const job = this.get(id);
    if (!job) throw new Error(`No job ${id}`);
    return job;
  }
}
