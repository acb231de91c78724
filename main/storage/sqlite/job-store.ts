import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import { IDEMPOTENCY_TTL_MS, keyVerdict, type KeyEntry } from '../../queue/idempotency.js';
import type { JobStore } from '../../queue/job-store.js';
import { CapCount, capsAsked, capWindowStart, type StartCount } from '../../queue/cap-count.js';
import { AccountQueues, type QueueKey } from '../../queue/queue-order.js';
import { newJobRow, planAgentLost, planAttemptEnd, planCancel, planDispatch, planExpiry, StaleMove, type JobChanges, type JobMove, type Loss } from '../../queue/job-moves.js';
import type { SentPrompt } from '../../core/agent.js';
import { storedChunks, type NewAttachment } from '../../core/attachments.js';
import { isFinal } from '../../queue/state-machine.js';
import { JobEvents } from '../../queue/job-events.js';
import { GroupCommit } from './group-commit.js';
import { LiveJobs } from './live-jobs.js';
import { SqliteDeltas } from './job-deltas.js';
import { objectRows } from './object-rows.js';
import {
  EVERY_ACCOUNT,
  type AttemptEnd,
  type HourStart,
  type AttemptRow,
  type Claim,
  type ConversationRow,
  type Deletion,
  type DeltaRow,
  type IdempotencyClaim,
  type JobRow,
  type JobView,
  JOB_VIEW_COLUMNS,
  type Moved,
  type QueuedJob,
  type StoreEvent,
  type SubmitRequest,
  type SubmitResult,
  type Viewer,
} from '../../core/jobs.js';
import type { SqliteWebhookOutbox } from './outbox.js';

/** Lets requests and the queue run between two chunks of a submission's files. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The job store of one machine, in the data dir's SQLite database (see job-store.ts for the
 * port). Every method runs synchronously inside; the promises are the port's, except a
 * submission's: submissions arriving together share one transaction (GroupCommit), whose
 * fsync is paid once per group and off the event loop, and answer once it is done. The
 * other moves are one immediate transaction each, at synchronous=FULL.
 *
 * Each move reads its rows, has them planned (queue/job-moves.ts) and applies the plan in
 * `apply`, which also keeps the in-memory queue order and live jobs in step and holds the
 * event until the transaction commits.
 */
export class SqliteJobStore implements JobStore {
  /** The queued jobs in dispatch order, per account: the queue limit and queue_position read it. */
  private order: AccountQueues;
  /** What polls read: the jobs not final yet (live-jobs.ts). */
  private readonly live = new LiveJobs();
  private readonly commits: GroupCommit;
  /** Told after each commit; a listener that throws neither fails the committed call nor keeps the others from hearing. */
  readonly events = new JobEvents();
  /** Events of the transaction under way, published once it commits. */
  private unpublished: StoreEvent[] = [];
  private readonly s;
  /** The job writes of the moves, by the columns they set (see jobWrite). */
  private readonly jobWrites = new Map<string, Statement>();
  private readonly deltas: SqliteDeltas;

  constructor(
    private readonly db: Db,
    private readonly outbox: SqliteWebhookOutbox,
  ) {
    this.commits = new GroupCommit(db, () => this.recount());
    this.deltas = new SqliteDeltas(db);
    this.s = {
      // Bound by position: each submission runs it, and by name it took a third longer
      // (4.2 µs against 3.1 on a file database, 2026-11-30).
      insert: db.prepare(
        `INSERT INTO jobs (id, status, prompt, req_provider, req_agent_id, conversation_in, priority, timeout_ms,
           deadline_at, max_attempts, callback_url, metadata, created_at, api_key_id, account_id, variant, attachments)
         VALUES (?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertChunk: db.prepare(`INSERT INTO job_files (job_id, position, chunk, data) VALUES (?, ?, ?, ?)`),
      fileChunk: db.prepare(`SELECT data FROM job_files WHERE job_id = ? AND position = ? AND chunk = ?`).pluck(),
      dropFiles: db.prepare(`DELETE FROM job_files WHERE job_id IN (SELECT value FROM json_each(?))`),
      dropUnclaimed: db.prepare(`DELETE FROM job_files WHERE job_id NOT IN (SELECT id FROM jobs)`),
      get: objectRows<JobRow>(db.prepare(`SELECT * FROM jobs WHERE id = ?`)),
      view: objectRows<JobView>(db.prepare(`SELECT ${JOB_VIEW_COLUMNS} FROM jobs WHERE id = ?`)),
      queuedKeys: db.prepare(`SELECT id, priority, created_at, account_id, req_provider, req_agent_id FROM jobs WHERE status = 'queued'`),
      queuedInOrder: objectRows<QueuedJob>(
        db.prepare(
          `SELECT id, req_provider, req_agent_id, conversation_in, account_id, variant, attachments FROM jobs
           WHERE status = 'queued' ORDER BY priority DESC, created_at, id`,
        ),
      ),
      oldestQueued: db.prepare(`SELECT MIN(created_at) FROM jobs WHERE status = 'queued'`).pluck(),
      oldestQueuedOf: db.prepare(`SELECT MIN(created_at) FROM jobs WHERE status = 'queued' AND account_id IS ?`).pluck(),
      addAttempt: db.prepare(
        `INSERT INTO attempts (job_id, attempt, agent_id, provider, started_at) VALUES (@job_id, @attempt, @agent_id, @provider, @started_at)`,
      ),
      closeAttempt: db.prepare(
        `UPDATE attempts SET ended_at = @ended_at, outcome = @outcome, error_code = @error_code, detail = @detail
         WHERE job_id = @job_id AND attempt = @attempt AND ended_at IS NULL`,
      ),
      saveConversation: db.prepare(
        `INSERT INTO conversations (id, agent_id, provider, address, created_at, updated_at, account_id)
         VALUES (@id, @agent_id, @provider, @address, @created_at, @updated_at, @account_id)
         ON CONFLICT (id) DO UPDATE SET address = excluded.address, updated_at = excluded.updated_at`,
      ),
      attemptsOf: db.prepare(`SELECT * FROM attempts WHERE job_id = ? ORDER BY attempt`),
      recordSent: db.prepare(
        `UPDATE attempts SET sent_conversation = @conversation, sent_turns_before = @turnsBefore
         WHERE job_id = @jobId AND attempt = @attempt AND ended_at IS NULL`,
      ),
      sentUncollected: db.prepare(
        `SELECT a.* FROM jobs j JOIN attempts a ON a.job_id = j.id AND a.attempt = j.attempts
         WHERE j.status = 'dispatched' AND a.ended_at IS NULL AND a.sent_conversation IS NOT NULL ORDER BY j.id`,
      ),
      due: objectRows<JobRow>(db.prepare(`SELECT * FROM jobs WHERE status IN ('queued', 'dispatched') AND deadline_at <= ?`)),
      nextDeadline: db.prepare(`SELECT MIN(deadline_at) FROM jobs WHERE status IN ('queued', 'dispatched')`).pluck(),
      dispatched: objectRows<JobRow>(db.prepare(`SELECT * FROM jobs WHERE status = 'dispatched'`)),
      conversation: db.prepare(`SELECT * FROM conversations WHERE id = ?`),
      // Job ids begin with their creation time, so the primary key gives the newest first.
      recent: objectRows<JobRow>(db.prepare(`SELECT * FROM jobs ORDER BY id DESC LIMIT ?`)),
      startsByAccount: db.prepare(
        `SELECT j.account_id AS account_id, SUM(a.started_at >= @today) AS today, SUM(a.started_at > @hourAgo) AS hour
         FROM attempts a JOIN jobs j ON j.id = a.job_id WHERE a.started_at >= MIN(@today, @hourAgo) GROUP BY j.account_id`,
      ),
      startsSince: db.prepare(
        `SELECT a.job_id, a.attempt, a.agent_id, a.provider, a.started_at, j.variant FROM attempts a JOIN jobs j ON j.id = a.job_id
         WHERE a.started_at > ? ORDER BY a.started_at, a.job_id, a.attempt`,
      ),
      startsPerAgent: db.prepare(
        `SELECT a.agent_id, a.provider, j.variant, COUNT(*) AS n FROM attempts a JOIN jobs j ON j.id = a.job_id
         WHERE a.started_at > ? GROUP BY a.agent_id, a.provider, j.variant`,
      ),
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
      findKey: db.prepare(`SELECT request_hash, job_id, created_at FROM idempotency WHERE key = ?`),
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
    const { job, attachments = [] } = request;
    await this.stageFiles(job.id, attachments);
    let result: SubmitResult;
    try {
      result = await this.commits.run(() => this.submitInTransaction(request));
    } catch (error) {
      this.dropFilesOf([job.id]);
      throw error;
    }
    if (result.kind === 'created') this.events.publish({ job: result.job, from: null });
    else if (attachments.length > 0) this.dropFilesOf([job.id]);
    return result;
  }

  /**
   * Writes a submission's files before its job, one chunk a turn of the event loop, each its
   * own commit: requests and the queue go on between two, however big the files. These
   * commits skip their fsync (synchronous=NORMAL for the one statement); the job's commit,
   * with its fsync, makes them durable with it: the log is written in order.
   */
  private async stageFiles(jobId: string, files: readonly NewAttachment[]): Promise<void> {
    for (const [position, file] of files.entries()) {
      for (const [chunk, data] of storedChunks(file.data).entries()) {
        await nextTurn();
        this.db.pragma('synchronous = NORMAL');
        try {
          this.s.insertChunk.run(jobId, position, chunk, data);
        } finally {
          this.db.pragma('synchronous = FULL');
        }
      }
    }
  }

  /**
   * Removes what a submission that ended in no job wrote (refused, or cut by a crash before
   * its job's commit): only the serving process writes files, and it calls this as it opens.
   */
  dropUnclaimedFiles(): number {
    return this.s.dropUnclaimed.run().changes;
  }

  async dispatch(claims: readonly Claim[], now: number): Promise<JobRow[]> {
    return this.transaction(() => {
      // The immediate transaction holds every other writer off: the count stays exact.
      const caps = capsAsked(claims) ? new CapCount(this.s.startsPerAgent.all(capWindowStart(now)) as StartCount[]) : undefined;
      const dispatched: JobRow[] = [];
      for (const claim of claims) {
        const job = this.get_(claim.jobId);
        if (job?.status === 'queued' && (caps?.take(claim) ?? true)) dispatched.push(this.apply(planDispatch(job, claim, now)).job);
      }
      return dispatched;
    });
  }

  async endAttempt(id: string, attempt: number, end: AttemptEnd, now: number): Promise<Moved | null> {
    return this.transaction(() => {
      const job = this.get_(id);
      const move = job && planAttemptEnd(job, this.attemptsOf(id), attempt, end, now);
      return move ? this.apply(move) : null;
    });
  }

  async cancel(id: string, now: number): Promise<Moved | undefined> {
    return this.transaction(() => {
      const job = this.get_(id);
      if (!job) return undefined;
      const move = planCancel(job, this.attemptsOf(id), now);
      return move ? this.apply(move) : { job, from: job.status };
    });
  }

  async expireDue(now: number): Promise<Moved[]> {
    return this.transaction(() => this.s.due.all(now).map((job) => this.apply(planExpiry(job, this.attemptsOf(job.id), now))));
  }

  async requeueDispatched(now: number, loss?: Loss): Promise<Moved[]> {
    return this.transaction(() =>
      this.s.dispatched.all().flatMap((job) => {
        const move = planAgentLost(job, this.attemptsOf(job.id), now, loss);
        return move ? [this.apply(move)] : [];
      }),
    );
  }

  async recordSent(id: string, attempt: number, sent: SentPrompt): Promise<void> {
    this.s.recordSent.run({ jobId: id, attempt, ...sent });
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
      if (ids.length > 0) {
        this.s.prune.run(now, JSON.stringify(ids));
        this.dropFilesOf(ids);
      }
      return ids.length;
    });
  }

  async pruneIdempotency(now: number): Promise<void> {
    this.s.pruneKeys.run(now - IDEMPOTENCY_TTL_MS);
  }

  // ---- the answer as it renders ------------------------------------------------------------

  async appendDelta(id: string, attempt: number, text: string): Promise<DeltaRow | null> {
    const row = this.deltas.append(id, attempt, text);
    if (row) this.events.publishDelta(row);
    return row;
  }

  async deltasSince(id: string, afterSeq: number): Promise<DeltaRow[]> {
    return this.deltas.since(id, afterSeq);
  }

  async dropDeltas(id: string): Promise<void> {
    this.deltas.drop(id);
  }

  async dropFinishedDeltas(): Promise<number> {
    return this.deltas.dropFinished();
  }

  // ---- reads ----------------------------------------------------------------------------

  async get(id: string): Promise<JobRow | undefined> {
    return this.get_(id);
  }

  async view(id: string): Promise<JobView | undefined> {
    return this.live.get(id) ?? this.s.view.get(id);
  }

  async attempts(id: string): Promise<AttemptRow[]> {
    return this.attemptsOf(id);
  }

  async *fileChunks(id: string, position: number): AsyncIterable<Buffer> {
    // One chunk a statement, each its own read: the database is free between two, and only
    // the chunk being written out is held.
    for (let chunk = 0; ; chunk++) {
      const data = this.s.fileChunk.get(id, position, chunk) as Buffer | undefined;
      if (data === undefined) return;
      yield data;
    }
  }

  async conversation(ref: string): Promise<ConversationRow | undefined> {
    return this.s.conversation.get(ref) as ConversationRow | undefined;
  }

  async recent(limit: number): Promise<JobRow[]> {
    return this.s.recent.all(limit);
  }

  async queuedInOrder(): Promise<QueuedJob[]> {
    return this.s.queuedInOrder.all();
  }

  /** From memory: the 1 000-job limit is checked on every submission. */
  async queuedCount(viewer: Viewer): Promise<number> {
    return this.countQueued(viewer);
  }

  async queuePosition(job: JobView): Promise<number> {
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

  async sentUncollected(): Promise<{ job: JobRow; attempt: AttemptRow }[]> {
    return (this.s.sentUncollected.all() as AttemptRow[]).map((attempt) => ({ job: this.get_(attempt.job_id)!, attempt }));
  }

  async attemptStartsSince(since: number): Promise<HourStart[]> {
    return this.s.startsSince.all(since) as HourStart[];
  }

  async startsByAccount(today: number, hourAgo: number): Promise<Map<string | null, { today: number; hour: number }>> {
    const rows = this.s.startsByAccount.all({ today, hourAgo }) as { account_id: string | null; today: number; hour: number }[];
    return new Map(rows.map((r) => [r.account_id, { today: r.today, hour: r.hour }]));
  }

  // ---- events ---------------------------------------------------------------------------

  onEvent(listener: (event: StoreEvent) => void): () => void {
    return this.events.onEvent(listener);
  }

  /** Waits for the submissions already handed to the group commit; the database is its owner's to close. */
  async close(): Promise<void> {
    await this.commits.run(() => {});
    this.events.clear();
  }

  // ---- a submission, and the plan of a move applied -------------------------------------

  private submitInTransaction({ job, attachments = [], idempotency, queuedLimit, refuseNew }: SubmitRequest): SubmitResult {
    const found = idempotency && this.findByKey(idempotency, job.created_at);
    if (found) return found;
    if (this.countQueued(job.account_id ?? null) >= queuedLimit) return { kind: 'queue_full' };
    if (refuseNew) return { kind: 'refused' };
    // The files' bytes are already stored (stageFiles): this commit makes them the job's.
    const row = newJobRow(job, attachments);
    const { id, prompt, req_provider, req_agent_id, conversation_in, priority, timeout_ms, deadline_at, max_attempts } = row;
    const { callback_url, metadata, created_at, api_key_id, account_id, variant } = row;
    this.s.insert.run(id, prompt, req_provider, req_agent_id, conversation_in, priority, timeout_ms, deadline_at, max_attempts,
      callback_url, metadata, created_at, api_key_id, account_id, variant, JSON.stringify(row.attachments));
    this.order.add(row);
    this.live.hold(row);
    if (idempotency) this.s.rememberKey.run(idempotency.key, idempotency.hash, job.id, job.created_at);
    return { kind: 'created', job: row };
  }

  /** The job an idempotency entry stands for, or its conflict; undefined: make the job. */
  private findByKey(claim: IdempotencyClaim, now: number): SubmitResult | undefined {
    const verdict = keyVerdict(this.s.findKey.get(claim.key) as KeyEntry | undefined, claim, now);
    if (verdict.kind === 'conflict') return verdict;
    const original = verdict.kind === 'repeat' ? this.get_(verdict.jobId) : undefined;
    if (!original) return undefined;
    // A repeat found starts its window again, for the next repeat.
    if (claim.onOtherHash === 'replace') this.s.rememberKey.run(claim.key, claim.hash, original.id, now);
    return { kind: 'found', job: original };
  }

  /**
   * Writes a move's plan; the queue order follows the job in or out of `queued`, and its
   * event waits for the commit.
   */
  private apply(move: JobMove): Moved {
    const { job, from, start } = move.event;
    if (this.jobWrite(move.set).run({ ...move.set, id: job.id, from }).changes !== 1) throw new StaleMove(job.id, `no longer ${from}`);
    if (move.ends && this.s.closeAttempt.run(move.ends).changes !== 1) throw new StaleMove(job.id, `attempt ${move.ends.attempt} already closed`);
    if (start) this.s.addAttempt.run(start);
    if (move.conversation) this.s.saveConversation.run(move.conversation);
    if (move.delivery) this.outbox.enqueue(move.delivery);
    if (from === 'queued' && job.status !== 'queued') this.order.remove(job);
    else if (from !== 'queued' && job.status === 'queued') this.order.add(job);
    this.live.hold(job);
    this.unpublished.push(move.event);
    return { job, from };
  }

  // ---- pieces -----------------------------------------------------------------------------

  /**
   * The statement that writes these columns of a job where it still has status `@from`:
   * each kind of move changes its own few (an UPDATE that names a column must keep the
   * indexes holding it in step, even to write the value it had), so one is prepared per set.
   */
  private jobWrite(set: JobChanges): Statement {
    const columns = Object.keys(set);
    const key = columns.join();
    let statement = this.jobWrites.get(key);
    if (!statement) {
      statement = this.db.prepare(`UPDATE jobs SET ${columns.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id AND status = @from`);
      this.jobWrites.set(key, statement);
    }
    return statement;
  }

  private attemptsOf(id: string): AttemptRow[] {
    return this.s.attemptsOf.all(id) as AttemptRow[];
  }

  private deleteRows(ids: string[]): void {
    const list = JSON.stringify(ids);
    this.s.deleteAttempts.run(list);
    this.s.deleteJobs.run(list);
    this.dropFilesOf(ids);
  }

  private dropFilesOf(ids: string[]): void {
    this.s.dropFiles.run(JSON.stringify(ids));
  }

  private countQueued(viewer: Viewer): number {
    return viewer === EVERY_ACCOUNT ? this.order.total() : this.order.size(viewer);
  }

  /**
   * One immediate transaction, then the events of its moves. If it fails, its events are
   * dropped, the in-memory queue order, which may have moved ahead of the rolled-back rows,
   * is read again, and the live jobs are forgotten (reads fill them again).
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
    for (const event of events) this.events.publish(event);
    return result;
  }

  private recount(): void {
    this.order = new AccountQueues(this.s.queuedKeys.all() as QueueKey[]);
    this.live.clear();
  }

  private get_(id: string): JobRow | undefined {
    return this.s.get.get(id);
  }
}
