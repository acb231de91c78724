import type pg from 'pg';
import {
  EVERY_ACCOUNT,
  type AttemptEnd,
  type AttemptRow,
  type HourStart,
  type Claim,
  type ConversationRow,
  type Deletion,
  type DeltaRow,
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
import { CapCount, capsAsked, capWindowStart, type StartCount } from '../../queue/cap-count.js';
import { IDEMPOTENCY_TTL_MS } from '../../queue/idempotency.js';
import { planAgentLost, planAttemptEnd, planCancel, planDispatch, planExpiry, type JobMove, type Loss } from '../../queue/job-moves.js';
import type { SentPrompt } from '../../core/agent.js';
import type { JobStore } from '../../queue/job-store.js';
import { isFinal } from '../../queue/state-machine.js';
import { JobEvents } from '../../queue/job-events.js';
import { commitAnnouncing, JobNotices } from './job-notices.js';
import { appendDelta, DeltaNotices, deltasSince, dropDeltas, dropFinishedDeltas } from './job-deltas.js';
import { applyMove, attemptsOf, lockJob, one } from './job-moves.js';
import { capsLock, trySweepLock } from './locks.js';
import { Rollback, submitJob } from './job-submit.js';

type Client = pg.PoolClient;

/**
 * The job store of instances sharing one PostgreSQL database (the JobStore port). Each move
 * locks its rows, has them planned (queue/job-moves.ts) and writes the plan (job-moves.ts
 * beside this); a submission is job-submit.ts.
 */
export class PgJobStore implements JobStore {
  /** Told after each commit; a listener that throws neither fails the committed call nor keeps the others from hearing. */
  readonly events = new JobEvents();
  /** Other instances' moves, while listen() is on. */
  private notices: JobNotices | undefined;
  /** Other instances' pieces of answers, while listen() is on. */
  private deltaNotices: DeltaNotices | undefined;

  /**
   * `pool` comes from connect() (its BIGINTs are numbers) and is the store's to close.
   * `deviceId` is this instance: the attempts it dispatches are its own to re-queue.
   */
  constructor(
    private readonly pool: pg.Pool,
    readonly deviceId: string,
  ) {}

  // ---- moves ----

  async submit(request: SubmitRequest): Promise<SubmitResult> {
    return this.tx((c, events) => submitJob(c, request, events));
  }

  async dispatch(claims: readonly Claim[], now: number): Promise<JobRow[]> {
    if (claims.length === 0) return [];
    return this.tx(async (c, events) => {
      const caps = capsAsked(claims) ? await this.countStarts(c, now) : undefined;
      // Locked in id order, skipping rows another transaction holds: two instances claiming
      // overlapping jobs never wait on each other, and a job one of them holds is its to move.
      const free = await c.query<JobRow>(`SELECT * FROM jobs WHERE id = ANY($1) AND status = 'queued' ORDER BY id FOR UPDATE SKIP LOCKED`, [
        [...new Set(claims.map((claim) => claim.jobId))],
      ]);
      const claimable = new Map(free.rows.map((job) => [job.id, job]));
      const dispatched: JobRow[] = [];
      for (const claim of claims) {
        const job = claimable.get(claim.jobId);
        if (!job || !(caps?.take(claim) ?? true)) continue;
        claimable.delete(claim.jobId);
        const move = planDispatch(job, claim, now);
        dispatched.push((await applyMove(c, move, this.deviceId)).job);
        events.push(move.event);
      }
      return dispatched;
    });
  }

  async endAttempt(id: string, attempt: number, end: AttemptEnd, now: number): Promise<Moved | null> {
    return this.tx(async (c, events): Promise<Moved | null> => {
      const job = await lockJob(c, id);
      const move = job && planAttemptEnd(job, await attemptsOf(c, id), attempt, end, now);
      if (!move) return null;
      const moved = await applyMove(c, move, this.deviceId);
      events.push(move.event);
      return moved;
    });
  }

  async cancel(id: string, now: number): Promise<Moved | undefined> {
    return this.tx(async (c, events): Promise<Moved | undefined> => {
      const job = await lockJob(c, id);
      if (!job) return undefined;
      const move = planCancel(job, await attemptsOf(c, id), now);
      if (!move) return { job, from: job.status };
      const moved = await applyMove(c, move, this.deviceId);
      events.push(move.event);
      return moved;
    });
  }

  async expireDue(now: number): Promise<Moved[]> {
    return this.tx(async (c, events) => {
      // In id order, as every statement locking several jobs: instances never deadlock.
      const due = await c.query<JobRow>(`SELECT * FROM jobs WHERE status IN ('queued', 'dispatched') AND deadline_at <= $1 ORDER BY id FOR UPDATE`, [now]);
      return this.applyEach(c, events, due.rows, async (job) => planExpiry(job, await attemptsOf(c, job.id), now));
    });
  }

  async requeueDispatched(now: number, loss?: Loss): Promise<Moved[]> {
    return this.tx(async (c, events) => {
      const mine = await c.query<JobRow>(
        `SELECT j.* FROM jobs j
         WHERE j.status = 'dispatched'
           AND EXISTS (SELECT 1 FROM attempts a WHERE a.job_id = j.id AND a.ended_at IS NULL AND a.device_id = $1)
         ORDER BY j.id FOR UPDATE OF j`,
        [this.deviceId],
      );
      return this.applyEach(c, events, mine.rows, async (job) => planAgentLost(job, await attemptsOf(c, job.id), now, loss));
    });
  }

  async recordSent(id: string, attempt: number, sent: SentPrompt): Promise<void> {
    await this.pool.query(
      `UPDATE attempts SET (sent_conversation, sent_turns_before) = ROW($3, $4) WHERE (job_id, attempt) = ($1, $2) AND ended_at IS NULL`,
      [id, attempt, sent.conversation, sent.turnsBefore],
    );
  }

  /**
   * What requeueDispatched does for a device that cannot do it itself: the open attempts of
   * devices lost to the others (their heartbeat older than `leaseMs`, or left, or never
   * registered) end `agent_lost`, and their jobs go back to the queue or fail when attempts
   * are used up. Only this device's own attempts are left alone: it is alive, it is sweeping.
   * One transaction, done by one sweeper at a time; the moves are announced as every move is.
   */
  async requeueLostDevices(now: number, leaseMs: number): Promise<Moved[]> {
    return this.tx(async (c, events) => {
      if (!(await trySweepLock(c))) return [];
      const lost = await c.query<JobRow & { lost_attempt: number }>(
        `SELECT j.*, a.attempt AS lost_attempt FROM jobs j
         JOIN attempts a ON a.job_id = j.id AND a.ended_at IS NULL
         LEFT JOIN devices d ON d.id = a.device_id
         WHERE j.status = 'dispatched' AND a.device_id <> $1
           AND (d.id IS NULL OR d.left_at IS NOT NULL OR d.heartbeat_at < $2)
         ORDER BY j.id FOR UPDATE OF j`,
        [this.deviceId, now - leaseMs],
      );
      return this.applyEach(c, events, lost.rows, async ({ lost_attempt, ...job }) => {
        // While this waited for its lock, the job may have moved on (its device's late result
        // came in, and it may even run again elsewhere): the row locked is the job as it is
        // now, but the attempt joined to it is as first read, so the attempts are read again.
        const attempts = await attemptsOf(c, job.id);
        return attempts.find((a) => a.ended_at === null)?.attempt === lost_attempt ? planAgentLost(job, attempts, now) : undefined;
      });
    });
  }

  async delete(id: string): Promise<Deletion | undefined> {
    return this.tx(async (c): Promise<Deletion | undefined> => {
      const job = await lockJob(c, id);
      if (!job) return undefined;
      if (!isFinal(job.status)) return { deleted: false, status: job.status };
      // Its attempts, webhook delivery and delivery log go with it (ON DELETE CASCADE).
      await c.query(`DELETE FROM jobs WHERE id = $1`, [id]);
      return { deleted: true };
    });
  }

  async purgeFinishedBefore(before: number, limit: number): Promise<number> {
    const result = await this.pool.query(
      `DELETE FROM jobs WHERE id IN (
         SELECT id FROM jobs WHERE finished_at < $1 ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, limit],
    );
    return result.rowCount ?? 0;
  }

  async pruneContent(before: number, now: number, limit: number, account: string | null = null): Promise<number> {
    // The files' bytes go in the same statement as the text (a data-modifying WITH).
    const result = await this.pool.query(
      `WITH pruned AS (
         UPDATE jobs SET prompt = '', response = NULL, content_pruned_at = $2 WHERE id IN (
           SELECT id FROM jobs WHERE finished_at < $1 AND content_pruned_at IS NULL AND account_id IS NOT DISTINCT FROM $4
           ORDER BY finished_at LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING id),
       files AS (DELETE FROM job_files WHERE job_id IN (SELECT id FROM pruned))
       SELECT COUNT(*)::int AS n FROM pruned`,
      [before, now, limit, account],
    );
    return (result.rows[0] as { n: number }).n;
  }

  async pruneIdempotency(now: number): Promise<void> {
    await this.pool.query(`DELETE FROM idempotency WHERE created_at <= $1`, [now - IDEMPOTENCY_TTL_MS]);
  }

  // ---- reads ----

  get(id: string): Promise<JobRow | undefined> {
    return one<JobRow>(this.pool, `SELECT * FROM jobs WHERE id = $1`, [id]);
  }

  view(id: string): Promise<JobView | undefined> {
    return one<JobView>(this.pool, `SELECT ${JOB_VIEW_COLUMNS} FROM jobs WHERE id = $1`, [id]);
  }

  attempts(id: string): Promise<AttemptRow[]> {
    return attemptsOf(this.pool, id);
  }

  async *fileChunks(id: string, position: number): AsyncIterable<Buffer> {
    // One chunk a query: only the chunk being written out is held, and no connection is kept between two.
    for (let chunk = 0; ; chunk++) {
      const row = await one<{ data: Buffer }>(this.pool, `SELECT data FROM job_files WHERE (job_id, position, chunk) = ($1, $2, $3)`, [id, position, chunk]);
      if (!row) return;
      yield row.data;
    }
  }

  conversation(ref: string): Promise<ConversationRow | undefined> {
    return one<ConversationRow>(this.pool, `SELECT * FROM conversations WHERE id = $1`, [ref]);
  }

  async recent(limit: number): Promise<JobRow[]> {
    // Job ids begin with their creation time, so the primary key gives the newest first.
    const { rows } = await this.pool.query<JobRow>(`SELECT * FROM jobs ORDER BY id DESC LIMIT $1`, [limit]);
    return rows;
  }

  async queuedInOrder(): Promise<QueuedJob[]> {
    const { rows } = await this.pool.query<QueuedJob>(
      `SELECT id, req_provider, req_agent_id, conversation_in, account_id, variant, attachments FROM jobs
       WHERE status = 'queued' ORDER BY priority DESC, created_at, id`,
    );
    return rows;
  }

  async queuedCount(viewer: Viewer): Promise<number> {
    const row =
      viewer === EVERY_ACCOUNT
        ? await one<{ n: number }>(this.pool, `SELECT COUNT(*) AS n FROM jobs WHERE status = 'queued'`)
        : await one<{ n: number }>(this.pool, `SELECT COUNT(*) AS n FROM jobs WHERE status = 'queued' AND COALESCE(account_id, '') = $1`, [viewer ?? '']);
    return row!.n;
  }

  async queuePosition(job: JobView): Promise<number> {
    const row = await one<{ n: number }>(
      this.pool,
      `SELECT COUNT(*) AS n FROM jobs
       WHERE status = 'queued' AND COALESCE(account_id, '') = $1
         AND (priority > $2 OR (priority = $2 AND (created_at < $3 OR (created_at = $3 AND id < $4))))
         AND CASE WHEN $5::text IS NOT NULL AND req_agent_id IS NOT NULL THEN req_agent_id = $5
                  ELSE $6::text IS NULL OR req_provider IS NULL OR req_provider = $6 END`,
      [job.account_id ?? '', job.priority, job.created_at, job.id, job.req_agent_id, job.req_provider],
    );
    return row!.n + 1;
  }

  async oldestQueuedAt(viewer: Viewer): Promise<number | null> {
    const row =
      viewer === EVERY_ACCOUNT
        ? await one<{ at: number | null }>(this.pool, `SELECT MIN(created_at) AS at FROM jobs WHERE status = 'queued'`)
        : await one<{ at: number | null }>(
            this.pool,
            `SELECT MIN(created_at) AS at FROM jobs WHERE status = 'queued' AND COALESCE(account_id, '') = $1`,
            [viewer ?? ''],
          );
    return row!.at;
  }

  async nextDeadline(): Promise<number | null> {
    const row = await one<{ at: number | null }>(this.pool, `SELECT MIN(deadline_at) AS at FROM jobs WHERE status IN ('queued', 'dispatched')`);
    return row!.at;
  }

  async queuedOfDisabledAccounts(): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT j.id FROM jobs j JOIN accounts a ON a.id = j.account_id WHERE j.status = 'queued' AND a.disabled_at IS NOT NULL ORDER BY j.id`,
    );
    return rows.map((r) => r.id);
  }

  async sentUncollected(): Promise<{ job: JobRow; attempt: AttemptRow }[]> {
    const { rows } = await this.pool.query<{ job: JobRow; attempt: AttemptRow }>(
      `SELECT to_jsonb(j) AS job, to_jsonb(a) - 'device_id' AS attempt FROM jobs j JOIN attempts a ON a.job_id = j.id AND a.attempt = j.attempts
       WHERE j.status = 'dispatched' AND a.ended_at IS NULL AND a.sent_conversation IS NOT NULL AND a.device_id = $1 ORDER BY j.id`,
      [this.deviceId],
    );
    return rows;
  }

  async attemptStartsSince(since: number): Promise<HourStart[]> {
    const { rows } = await this.pool.query<HourStart>(
      `SELECT a.job_id, a.attempt, a.agent_id, a.provider, a.started_at, j.variant FROM attempts a JOIN jobs j ON j.id = a.job_id
       WHERE a.started_at > $1 ORDER BY a.started_at, a.job_id, a.attempt`,
      [since],
    );
    return rows;
  }

  async startsByAccount(today: number, hourAgo: number): Promise<Map<string | null, { today: number; hour: number }>> {
    const { rows } = await this.pool.query<{ account_id: string | null; today: number; hour: number }>(
      `SELECT j.account_id, COUNT(*) FILTER (WHERE a.started_at >= $1::bigint) AS today,
         COUNT(*) FILTER (WHERE a.started_at > $2::bigint) AS hour
       FROM attempts a JOIN jobs j ON j.id = a.job_id
       WHERE a.started_at >= LEAST($1::bigint, $2::bigint) GROUP BY j.account_id`,
      [today, hourAgo],
    );
    return new Map(rows.map((r) => [r.account_id, { today: r.today, hour: r.hour }]));
  }

  // ---- the answer as it renders ----

  async appendDelta(id: string, attempt: number, text: string): Promise<DeltaRow | null> {
    const row = await appendDelta(this.pool, this.deviceId, id, attempt, text);
    if (row) this.events.publishDelta(row);
    return row;
  }

  deltasSince(id: string, afterSeq: number): Promise<DeltaRow[]> {
    return deltasSince(this.pool, id, afterSeq);
  }

  dropDeltas(id: string): Promise<void> {
    return dropDeltas(this.pool, id);
  }

  dropFinishedDeltas(): Promise<number> {
    return dropFinishedDeltas(this.pool);
  }

  // ---- events ----

  onEvent(listener: (event: StoreEvent) => void): () => void {
    return this.events.onEvent(listener);
  }

  /**
   * Publishes the moves other instances make on this database too, as they commit them
   * (see JobNotices), besides this store's own. Holds one connection of the pool.
   */
  async listen(): Promise<void> {
    this.notices ??= new JobNotices(this.pool, this.deviceId, (events) => events.forEach((event) => this.events.publish(event)));
    this.deltaNotices ??= new DeltaNotices(this.pool, this.deviceId, (row) => this.events.publishDelta(row));
    await Promise.all([this.notices.listen(), this.deltaNotices.listen()]);
  }

  async close(): Promise<void> {
    this.events.clear();
    this.notices?.close();
    this.deltaNotices?.close();
    await this.pool.end();
  }

  // ---- the pieces of a move, inside its transaction ----

  /**
   * One transaction: `work` collects the events of the jobs it moves, published only after
   * COMMIT, so no listener hears of a move that could still roll back.
   */
  private async tx<T>(work: (c: Client, events: StoreEvent[]) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    const events: StoreEvent[] = [];
    let value: T;
    try {
      await c.query('BEGIN');
      value = await work(c, events);
      await commitAnnouncing(c, this.deviceId, events);
    } catch (error) {
      // A connection that cannot even roll back is in no state to be reused: it is closed.
      const rolledBack = await c.query('ROLLBACK').then(() => true, () => false);
      c.release(!rolledBack);
      if (error instanceof Rollback) return error.value as T;
      throw error;
    }
    c.release();
    for (const event of events) this.events.publish(event);
    return value;
  }

  /** Plans a move of each job in turn (none: it is left as it is) and writes it. */
  private async applyEach<J extends JobRow>(c: Client, events: StoreEvent[], jobs: J[], plan: (job: J) => Promise<JobMove | undefined>): Promise<Moved[]> {
    const moved: Moved[] = [];
    for (const job of jobs) {
      const move = await plan(job);
      if (!move) continue;
      moved.push(await applyMove(c, move, this.deviceId));
      events.push(move.event);
    }
    return moved;
  }

  /**
   * The starts of the rolling hour before `now`, counted under the caps lock: every instance
   * dispatching with caps takes it first and holds it to its commit, so each counts the others'
   * committed starts, and two cannot both take the last slot.
   */
  private async countStarts(c: Client, now: number): Promise<CapCount> {
    await capsLock(c);
    const { rows } = await c.query<StartCount>(
      `SELECT a.agent_id, a.provider, j.variant, COUNT(*) AS n FROM attempts a JOIN jobs j ON j.id = a.job_id
       WHERE a.started_at > $1 GROUP BY a.agent_id, a.provider, j.variant`,
      [capWindowStart(now)],
    );
    return new CapCount(rows);
  }
}
