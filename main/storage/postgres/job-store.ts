import type pg from 'pg';
import {
  EVERY_ACCOUNT,
  type AttemptEnd,
  type AttemptOutcome,
  type AttemptRow,
  type AttemptStart,
  type Claim,
  type ConversationRow,
  type Deletion,
  type FailureContext,
  type JobRow,
  type JobStatus,
  type Moved,
  type QueuedJob,
  type StoreEvent,
  type SubmitRequest,
  type SubmitResult,
  type Viewer,
} from '../../core/jobs.js';
import { CapCount, capsAsked, capWindowStart, type StartCount } from '../../queue/cap-count.js';
import { IDEMPOTENCY_TTL_MS } from '../../queue/idempotency.js';
import { commitAnnouncing, JobNotices } from './job-notices.js';
import type { JobStore } from '../../queue/job-store.js';
import { decideAfterFailure } from '../../queue/retry-policy.js';
import { isFinal, transition } from '../../queue/state-machine.js';

type Client = pg.PoolClient;

/**
 * Namespace of the per-account queue lock (two-int advisory keys: this, hashtext(account)).
 * Every submission takes its account's lock before counting that account's queued jobs, so
 * two instances each seeing 999 cannot both add the 1 000th and 1 001st. A hash collision
 * between two accounts only makes them take turns.
 */
const QUEUE_LOCK = 0x63627131; // "cbq1"

/**
 * The lease sweep's lock (one-int advisory key space, apart from the two-int keys above):
 * taken with try, so of the live devices sweeping at once one does the work and the others
 * return at once instead of queuing to find nothing left.
 */
const SWEEP_LOCK = 0x63_62_73_77_65_65_70n; // "cbsweep"

/**
 * The hourly caps' lock (one-int key space): dispatches with caps take turns, so each one's
 * count of the hour's starts includes every start committed before it.
 */
const CAPS_LOCK = 0x63_62_63_61_70_73n; // "cbcaps"

/** Ends a transaction with ROLLBACK and resolves with `value` (a refusal that writes nothing). */
class Rollback<T> {
  constructor(readonly value: T) {}
}

/** Where every piece of SQL about a job's life on PostgreSQL lives (the JobStore port). */
export class PgJobStore implements JobStore {
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  /** Other instances' moves, while listen() is on. */
  private notices: JobNotices | undefined;

  /**
   * `pool` comes from connect() (its BIGINTs are numbers) and is the store's to close.
   * `deviceId` is this instance: the attempts it dispatches are its own to re-queue.
   */
  constructor(
    private readonly pool: pg.Pool,
    readonly deviceId: string,
  ) {}

  // ---- moves ----

  async submit({ job, idempotency, queuedLimit, refuseNew }: SubmitRequest): Promise<SubmitResult> {
    const now = job.created_at;
    return this.tx(async (c, events): Promise<SubmitResult> => {
      if (idempotency) {
        // Inserts our entry, or locks the one there: a concurrent repeat of the key, on any
        // instance, waits here until this transaction ends, then sees what it wrote.
        const entry = await one<{ request_hash: string; job_id: string; created_at: number }>(
          c,
          `INSERT INTO idempotency AS i (key, request_hash, job_id, created_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (key) DO UPDATE SET key = i.key
           RETURNING request_hash, job_id, created_at`,
          [idempotency.key, idempotency.hash, job.id, now],
        );
        const earlier = entry!.job_id !== job.id && entry!.created_at > now - idempotency.ttlMs ? entry! : undefined;
        if (earlier && earlier.request_hash !== idempotency.hash && idempotency.onOtherHash === 'conflict') {
          throw new Rollback<SubmitResult>({ kind: 'conflict' });
        }
        const original = earlier?.request_hash === idempotency.hash ? await this.read(c, earlier.job_id) : undefined;
        if (original) {
          if (idempotency.onOtherHash === 'replace') await c.query(`UPDATE idempotency SET created_at = $2 WHERE key = $1`, [idempotency.key, now]);
          return { kind: 'found', job: original };
        }
        // Expired, replaced, or its job deleted since: the key now stands for this job.
        if (entry!.job_id !== job.id) {
          await c.query(`UPDATE idempotency SET request_hash = $2, job_id = $3, created_at = $4 WHERE key = $1`, [
            idempotency.key,
            idempotency.hash,
            job.id,
            now,
          ]);
        }
      }
      const account = job.account_id ?? null;
      await c.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [QUEUE_LOCK, account ?? '']);
      // Counting stops at the limit: a full queue costs no more to refuse than to fill. The
      // count runs in a statement after the lock's: in READ COMMITTED each statement reads as
      // of its start, so only one begun after the wait sees the last holder's job.
      const room = `(SELECT COUNT(*) FROM (SELECT 1 FROM jobs WHERE status = 'queued' AND COALESCE(account_id, '') = $1 LIMIT $2) AS q) < $2`;
      if (refuseNew) {
        const free = await one<{ room: boolean }>(c, `SELECT ${room} AS room`, [account ?? '', queuedLimit]);
        // The rollback also takes back the key recorded above: a refused request leaves nothing.
        throw new Rollback<SubmitResult>({ kind: free!.room ? 'refused' : 'queue_full' });
      }
      // The count and the insert in one statement: the account's lock is held one round trip less.
      const row = await one<JobRow>(
        c,
        `INSERT INTO jobs (id, status, prompt, req_provider, req_agent_id, conversation_in, priority, timeout_ms,
           deadline_at, max_attempts, callback_url, metadata, created_at, api_key_id, account_id, variant)
         SELECT $3, 'queued', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17 WHERE ${room}
         RETURNING *`,
        [
          account ?? '',
          queuedLimit,
          job.id,
          job.prompt,
          job.req_provider,
          job.req_agent_id,
          job.conversation_in,
          job.priority,
          job.timeout_ms,
          job.deadline_at,
          job.max_attempts,
          job.callback_url,
          job.metadata,
          job.created_at,
          job.api_key_id,
          account,
          job.variant ?? null,
        ],
      );
      if (!row) throw new Rollback<SubmitResult>({ kind: 'queue_full' });
      events.push({ job: row!, from: null });
      return { kind: 'created', job: row! };
    });
  }

  async dispatch(claims: readonly Claim[], now: number): Promise<JobRow[]> {
    if (claims.length === 0) return [];
    return this.tx(async (c, events) => {
      const caps = capsAsked(claims) ? await this.countStarts(c, now) : undefined;
      // Locked in id order, skipping rows another transaction holds: two instances claiming
      // overlapping jobs never wait on each other, and a job one of them holds is its to move.
      const free = await c.query<{ id: string }>(
        `SELECT id FROM jobs WHERE id = ANY($1) AND status = 'queued' ORDER BY id FOR UPDATE SKIP LOCKED`,
        [[...new Set(claims.map((claim) => claim.jobId))]],
      );
      const claimable = new Set(free.rows.map((r) => r.id));
      const dispatched: JobRow[] = [];
      for (const claim of claims) {
        if (!claimable.has(claim.jobId) || !(caps?.take(claim) ?? true)) continue;
        claimable.delete(claim.jobId);
        const to = transition('queued', 'dispatch');
        const job = (await one<JobRow>(
          c,
          `UPDATE jobs SET status = $2, attempts = attempts + 1, agent_id = $3, provider = $4,
             queue_ms = COALESCE(queue_ms, $5 - created_at)
           WHERE id = $1 RETURNING *`,
          [claim.jobId, to, claim.agentId, claim.provider, now],
        ))!;
        const start: AttemptStart = { job_id: job.id, attempt: job.attempts, agent_id: claim.agentId, provider: claim.provider, started_at: now };
        await c.query(
          `INSERT INTO attempts (job_id, attempt, agent_id, provider, device_id, started_at) VALUES ($1, $2, $3, $4, $5, $6)`,
          [start.job_id, start.attempt, start.agent_id, start.provider, this.deviceId, start.started_at],
        );
        events.push({ job, from: 'queued', start });
        dispatched.push(job);
      }
      return dispatched;
    });
  }

  async endAttempt(id: string, attempt: number, end: AttemptEnd, now: number): Promise<Moved | null> {
    return this.tx(async (c, events): Promise<Moved | null> => {
      const job = await this.must(c, id);
      const open = await this.openAttempt(c, id);
      // The job was cancelled or expired meanwhile: the agent's late result is dropped.
      if (!open || open.attempt !== attempt || job.status !== 'dispatched') return null;
      let after: JobRow;
      if (end.outcome === 'succeeded') {
        await this.closeAttempt(c, open, 'succeeded', null, null, now);
        await c.query(
          `INSERT INTO conversations (id, agent_id, provider, address, created_at, updated_at, account_id)
           VALUES ($1, $2, $3, $4, $5, $5, $6)
           ON CONFLICT (id) DO UPDATE SET address = excluded.address, updated_at = excluded.updated_at`,
          [end.conversationRef, open.agent_id, open.provider, end.conversationAddress, now, job.account_id],
        );
        after = (await one<JobRow>(
          c,
          `UPDATE jobs SET status = $2, response = $3, conversation_ref = $4, finished_at = $5, model_used = $6 WHERE id = $1 RETURNING *`,
          [id, transition(job.status, 'succeed'), end.response, end.conversationRef, now, end.modelUsed ?? null],
        ))!;
        await this.addDelivery(c, after, now);
      } else {
        after = await this.failAttempt(c, job, open, end.outcome, end.errorCode, now, end);
      }
      events.push({ job: after, from: job.status });
      return { job: after, from: job.status };
    });
  }

  async cancel(id: string, now: number): Promise<Moved | undefined> {
    return this.tx(async (c, events): Promise<Moved | undefined> => {
      const job = await this.lock(c, id);
      if (!job) return undefined;
      if (job.status !== 'queued' && job.status !== 'dispatched') return { job, from: job.status };
      const open = await this.openAttempt(c, id);
      if (open) await this.closeAttempt(c, open, 'cancelled', 'CANCELLED', null, now);
      const after = await this.settle(c, job, transition(job.status, 'cancel'), null, null, now);
      events.push({ job: after, from: job.status });
      return { job: after, from: job.status };
    });
  }

  async expireDue(now: number): Promise<Moved[]> {
    return this.tx(async (c, events) => {
      // In id order, as every statement locking several jobs: instances never deadlock.
      const due = await c.query<JobRow>(
        `SELECT * FROM jobs WHERE status IN ('queued', 'dispatched') AND deadline_at <= $1 ORDER BY id FOR UPDATE`,
        [now],
      );
      const moved: Moved[] = [];
      for (const job of due.rows) {
        const open = await this.openAttempt(c, job.id);
        if (open) await this.closeAttempt(c, open, 'timed_out', 'DEADLINE_EXCEEDED', null, now);
        const after = await this.settle(c, job, transition(job.status, 'expire'), 'JOB_TIMEOUT', 'The job deadline passed before it could finish.', now);
        moved.push({ job: after, from: job.status });
      }
      events.push(...moved);
      return moved;
    });
  }

  async requeueDispatched(now: number): Promise<Moved[]> {
    return this.tx(async (c, events) => {
      const mine = await c.query<JobRow>(
        `SELECT j.* FROM jobs j
         WHERE j.status = 'dispatched'
           AND EXISTS (SELECT 1 FROM attempts a WHERE a.job_id = j.id AND a.ended_at IS NULL AND a.device_id = $1)
         ORDER BY j.id FOR UPDATE OF j`,
        [this.deviceId],
      );
      const moved: Moved[] = [];
      for (const job of mine.rows) {
        const open = (await this.openAttempt(c, job.id))!;
        moved.push({ job: await this.failAttempt(c, job, open, 'agent_lost', 'AGENT_LOST', now), from: job.status });
      }
      events.push(...moved);
      return moved;
    });
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
      const sweeping = await one<{ won: boolean }>(c, `SELECT pg_try_advisory_xact_lock($1) AS won`, [SWEEP_LOCK.toString()]);
      if (!sweeping!.won) return [];
      const lost = await c.query<JobRow & { lost_attempt: number }>(
        `SELECT j.*, a.attempt AS lost_attempt FROM jobs j
         JOIN attempts a ON a.job_id = j.id AND a.ended_at IS NULL
         LEFT JOIN devices d ON d.id = a.device_id
         WHERE j.status = 'dispatched' AND a.device_id <> $1
           AND (d.id IS NULL OR d.left_at IS NOT NULL OR d.heartbeat_at < $2)
         ORDER BY j.id FOR UPDATE OF j`,
        [this.deviceId, now - leaseMs],
      );
      const moved: Moved[] = [];
      for (const { lost_attempt, ...job } of lost.rows) {
        // While this waited for its lock, the job may have moved on (its device's late result
        // came in, and it may even run again elsewhere): the row locked is the job as it is
        // now, but the attempt joined to it is as first read, so it is read again.
        const open = await this.openAttempt(c, job.id);
        if (open?.attempt !== lost_attempt) continue;
        moved.push({ job: await this.failAttempt(c, job, open, 'agent_lost', 'AGENT_LOST', now), from: job.status });
      }
      events.push(...moved);
      return moved;
    });
  }

  async delete(id: string): Promise<Deletion | undefined> {
    return this.tx(async (c): Promise<Deletion | undefined> => {
      const job = await this.lock(c, id);
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
    const result = await this.pool.query(
      `UPDATE jobs SET prompt = '', response = NULL, content_pruned_at = $2 WHERE id IN (
         SELECT id FROM jobs WHERE finished_at < $1 AND content_pruned_at IS NULL AND account_id IS NOT DISTINCT FROM $4
         ORDER BY finished_at LIMIT $3 FOR UPDATE SKIP LOCKED)`,
      [before, now, limit, account],
    );
    return result.rowCount ?? 0;
  }

  async pruneIdempotency(now: number): Promise<void> {
    await this.pool.query(`DELETE FROM idempotency WHERE created_at <= $1`, [now - IDEMPOTENCY_TTL_MS]);
  }

  // ---- reads ----

  get(id: string): Promise<JobRow | undefined> {
    return one<JobRow>(this.pool, `SELECT * FROM jobs WHERE id = $1`, [id]);
  }

  async attempts(id: string): Promise<AttemptRow[]> {
    const { rows } = await this.pool.query<AttemptRow>(
      `SELECT job_id, attempt, agent_id, provider, started_at, ended_at, outcome, error_code, detail
       FROM attempts WHERE job_id = $1 ORDER BY attempt`,
      [id],
    );
    return rows;
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
      `SELECT id, req_provider, req_agent_id, conversation_in, account_id, variant FROM jobs
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

  async queuePosition(job: JobRow): Promise<number> {
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

  async attemptStartsSince(since: number): Promise<AttemptStart[]> {
    const { rows } = await this.pool.query<AttemptStart>(
      `SELECT job_id, attempt, agent_id, provider, started_at FROM attempts WHERE started_at > $1 ORDER BY started_at, job_id, attempt`,
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

  // ---- events ----

  onEvent(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Publishes the moves other instances make on this database too, as they commit them
   * (see JobNotices), besides this store's own. Holds one connection of the pool.
   */
  async listen(): Promise<void> {
    this.notices ??= new JobNotices(this.pool, this.deviceId, (events) => this.publish(events));
    await this.notices.listen();
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.notices?.close();
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
    this.publish(events);
    return value;
  }

  /**
   * A listener that throws must not turn a committed move into a failed call, nor keep the
   * others from hearing it: its error is rethrown on its own, outside this call.
   */
  private publish(events: StoreEvent[]): void {
    for (const event of events) {
      for (const listener of [...this.listeners]) {
        try {
          listener(event);
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    }
  }

  /**
   * The starts of the rolling hour before `now`, counted under the caps lock: every instance
   * dispatching with caps takes it first and holds it to its commit, so each counts the others'
   * committed starts, and two cannot both take the last slot.
   */
  private async countStarts(c: Client, now: number): Promise<CapCount> {
    await c.query(`SELECT pg_advisory_xact_lock($1)`, [CAPS_LOCK.toString()]);
    const { rows } = await c.query<StartCount>(
      `SELECT agent_id, provider, COUNT(*) AS n FROM attempts WHERE started_at > $1 GROUP BY agent_id, provider`,
      [capWindowStart(now)],
    );
    return new CapCount(rows);
  }

  private read(c: Client, id: string): Promise<JobRow | undefined> {
    return one<JobRow>(c, `SELECT * FROM jobs WHERE id = $1`, [id]);
  }

  private lock(c: Client, id: string): Promise<JobRow | undefined> {
    return one<JobRow>(c, `SELECT * FROM jobs WHERE id = $1 FOR UPDATE`, [id]);
  }

  private async must(c: Client, id: string): Promise<JobRow> {
    const job = await this.lock(c, id);
    if (!job) throw new Error(`No job ${id}`);
    return job;
  }

  private openAttempt(c: Client, jobId: string): Promise<AttemptRow | undefined> {
    return one<AttemptRow>(c, `SELECT * FROM attempts WHERE job_id = $1 AND ended_at IS NULL`, [jobId]);
  }

  private async closeAttempt(c: Client, open: AttemptRow, outcome: AttemptOutcome, errorCode: string | null, detail: string | null, now: number): Promise<void> {
    await c.query(
      `UPDATE attempts SET ended_at = $3, outcome = $4, error_code = $5, detail = $6 WHERE job_id = $1 AND attempt = $2`,
      [open.job_id, open.attempt, now, outcome, errorCode, detail],
    );
    await c.query(`UPDATE jobs SET run_ms = run_ms + $2 WHERE id = $1`, [open.job_id, Math.max(0, now - open.started_at)]);
  }

  /** Closes a failed attempt; the job goes back to the queue or, when the policy says so, fails. */
  private async failAttempt(
    c: Client,
    job: JobRow,
    open: AttemptRow,
    outcome: AttemptOutcome,
    errorCode: string,
    now: number,
    context: FailureContext = {},
  ): Promise<JobRow> {
    await this.closeAttempt(c, open, outcome, errorCode, context.detail ?? null, now);
    const codes = await c.query<{ error_code: string }>(
      `SELECT error_code FROM attempts WHERE job_id = $1 AND ended_at IS NOT NULL ORDER BY attempt`,
      [job.id],
    );
    const decision = decideAfterFailure(
      codes.rows.map((r) => r.error_code),
      job.max_attempts,
      context,
    );
    if (decision.retry) {
      return (await one<JobRow>(c, `UPDATE jobs SET status = $2 WHERE id = $1 RETURNING *`, [job.id, transition(job.status, 'retry')]))!;
    }
    return this.settle(c, job, transition(job.status, 'fail'), decision.code, decision.message, now);
  }

  /** Moves a job to a final status, with its webhook delivery in the same transaction. */
  private async settle(c: Client, job: JobRow, status: JobStatus, code: string | null, message: string | null, now: number): Promise<JobRow> {
    const after = (await one<JobRow>(
      c,
      `UPDATE jobs SET status = $2, error_code = $3, error_message = $4, finished_at = $5 WHERE id = $1 RETURNING *`,
      [job.id, status, code, message, now],
    ))!;
    await this.addDelivery(c, after, now);
    return after;
  }

  /** The outbox row of a job just made final, if it has a callback_url (see WebhookOutbox). */
  private async addDelivery(c: Client, job: JobRow, now: number): Promise<void> {
    if (job.callback_url === null) return;
    await c.query(
      `INSERT INTO webhook_deliveries (job_id, origin, account_id, state, round, round_attempts, next_at, created_at)
       VALUES ($1, $2, $4, 'pending', 1, 0, $3, $3)`,
      [job.id, new URL(job.callback_url).origin, now, job.account_id ?? ''],
    );
  }
}

async function one<T extends pg.QueryResultRow>(db: pg.Pool | Client, sql: string, params: unknown[] = []): Promise<T | undefined> {
  const { rows } = await db.query<T>(sql, params);
  return rows[0];
}
