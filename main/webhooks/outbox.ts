import type { Db } from '../queue/db.js';
import { GroupCommit } from '../queue/sqlite/group-commit.js';
import { nextAttemptAt } from './schedule.js';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  job_id: string;
  origin: string;
  state: DeliveryState;
  round: number;
  round_attempts: number;
  next_at: number | null;
  created_at: number;
}

export interface DeliveryAttemptRow {
  job_id: string;
  attempt: number;
  round: number;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/** A delivery whose next attempt is due. */
export type DueDelivery = Pick<DeliveryRow, 'job_id' | 'origin' | 'round'>;

/**
 * The deliveries of one account to one origin: the sender lets accounts take turns, then
 * each account's origins. `account` is '' for jobs of no account (Profile F, the operator's).
 */
export interface Lane {
  account: string;
  origin: string;
}

/** Lanes in byte order of account, then origin: the sender takes turns by comparing them. */
export function byLane(a: Lane, b: Lane): number {
  if (a.account !== b.account) return a.account < b.account ? -1 : 1;
  return a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0;
}

/** How one attempt ended: the receiver's status, or why none came. */
export interface AttemptResult {
  jobId: string;
  round: number;
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/** Only a 2xx is a delivery; a 3xx too is a failure, as redirects are never followed. */
export function isDelivered(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode <= 299;
}

/**
 * The durable webhook outbox: one row per final job with a callback_url, its schedule, and
 * the log of its attempts. The job store adds the row in the transaction that makes the job
 * final; the sender reads what is due and records how each attempt ended. Two
 * implementations: SQLite in the data dir (SqliteWebhookOutbox, below, one sender) and
 * PostgreSQL shared by several instances (postgres/outbox.ts), where each sender claims
 * what it sends.
 */
export interface WebhookOutbox {
  /**
   * `listener` hears that a delivery may be due before any scheduled time: one was added in
   * this process (SQLite), or a redelivery was asked for by any instance or the command
   * line (PostgreSQL). Deliveries of jobs made final on other instances are heard as their
   * job store's events instead.
   */
  onEnqueue(listener: () => void): void;
  /** The lanes with a pending delivery, due or not, in byLane order. */
  pendingLanes(): Promise<Lane[]>;
  /**
   * Up to `limit` deliveries of `lane` due at `now`, oldest due first, except those of
   * `busy` jobs. On a shared database they are claimed for this instance: no other instance
   * gets them until they are recorded, released, or the claim's lease has passed.
   */
  dueFor(lane: Lane, now: number, busy: string[], limit: number): Promise<DueDelivery[]>;
  /** When the outbox should be looked at again after `now` (a retry due, a claim lapsing); null when never. */
  nextDueAfter(now: number): Promise<number | null>;
  /** Logs an attempt and moves its round on: delivered, the next attempt, or failed for good. */
  record(result: AttemptResult): Promise<void>;
  /** Hands back deliveries taken by `dueFor` and never attempted (shutdown), so another sender takes them at once. */
  release(jobIds: string[]): Promise<void>;
  get(jobId: string): Promise<DeliveryRow | undefined>;
  attempts(jobId: string): Promise<DeliveryAttemptRow[]>;
  /**
   * Deletes up to `limit` deliveries that are over (delivered, or failed for good) and were
   * created before `before`, with their attempt logs; returns how many. A pending one stays
   * whatever its age: it still has attempts to make.
   */
  clearOld(before: number, limit: number): Promise<number>;
  /** Starts a new round of attempts at `now`, whatever the state of the last one. */
  redeliver(jobId: string, now: number): Promise<DeliveryRow | undefined>;
}

/**
 * The lanes with a pending delivery, by a loose index scan: one seek per account, then one
 * per lane, however long the backlog behind each. The same SQL on SQLite and PostgreSQL.
 */
export const LANES = `
  WITH RECURSIVE
    a (account) AS (
      SELECT MIN(account_id) FROM webhook_deliveries WHERE state = 'pending'
      UNION ALL
      SELECT (SELECT MIN(account_id) FROM webhook_deliveries WHERE state = 'pending' AND account_id > a.account)
      FROM a WHERE a.account IS NOT NULL),
    l (account, origin) AS (
      SELECT account, (SELECT MIN(origin) FROM webhook_deliveries WHERE state = 'pending' AND account_id = a.account)
      FROM a WHERE a.account IS NOT NULL
      UNION ALL
      SELECT account, (SELECT MIN(origin) FROM webhook_deliveries WHERE state = 'pending' AND account_id = l.account AND origin > l.origin)
      FROM l WHERE l.origin IS NOT NULL)
  SELECT account, origin FROM l WHERE origin IS NOT NULL ORDER BY account, origin`;

/**
 * The webhook outbox of one machine, in the data dir's SQLite database. SqliteJobStore adds
 * a row with `enqueue`, inside the transaction that makes a job final. One sender drains it
 * (the running server), so nothing is claimed: the sender's own `busy` list keeps a
 * delivery from being attempted twice at once.
 */
export class SqliteWebhookOutbox implements WebhookOutbox {
  private readonly listeners: (() => void)[] = [];
  /** Attempt results arriving together share one commit (and its fsync). */
  private readonly commits: GroupCommit;
  private readonly s;

  constructor(db: Db) {
    this.commits = new GroupCommit(db);
    this.s = {
      insert: db.prepare(
        `INSERT INTO webhook_deliveries (job_id, origin, account_id, state, round, round_attempts, next_at, created_at)
         VALUES (@job_id, @origin, @account, 'pending', 1, 0, @now, @now)`,
      ),
      get: db.prepare(`SELECT job_id, origin, state, round, round_attempts, next_at, created_at FROM webhook_deliveries WHERE job_id = ?`),
      lanes: db.prepare(LANES),
      dueFor: db.prepare(
        `SELECT job_id, origin, round FROM webhook_deliveries
         WHERE state = 'pending' AND account_id = @account AND origin = @origin AND next_at <= @now
           AND job_id NOT IN (SELECT value FROM json_each(@busy))
         ORDER BY next_at LIMIT @limit`,
      ),
      nextAfter: db.prepare(`SELECT MIN(next_at) FROM webhook_deliveries WHERE state = 'pending' AND next_at > ?`).pluck(),
      addAttempt: db.prepare(
        `INSERT INTO webhook_attempts (job_id, attempt, round, started_at, duration_ms, status_code, error)
         VALUES (@jobId, (SELECT COALESCE(MAX(attempt), 0) + 1 FROM webhook_attempts WHERE job_id = @jobId),
           @round, @startedAt, @durationMs, @statusCode, @error)`,
      ),
      // Only the round the attempt belonged to moves on: a redelivery asked for while it
      // was in flight has started a new round, which keeps its own schedule.
      advance: db.prepare(
        `UPDATE webhook_deliveries SET state = @state, round_attempts = round_attempts + 1, next_at = @next_at
         WHERE job_id = @job_id AND round = @round`,
      ),
      attempts: db.prepare(`SELECT * FROM webhook_attempts WHERE job_id = ? ORDER BY attempt`),
      redeliver: db.prepare(
        `UPDATE webhook_deliveries SET state = 'pending', round = round + 1, round_attempts = 0, next_at = ? WHERE job_id = ?`,
      ),
      // Its attempt log goes with it (ON DELETE CASCADE).
      clearOld: db.prepare(
        `DELETE FROM webhook_deliveries WHERE job_id IN (
           SELECT job_id FROM webhook_deliveries WHERE state <> 'pending' AND created_at < ? ORDER BY created_at LIMIT ?)`,
      ),
    };
  }

  /**
   * Adds the delivery of a job that has just become final, if it has a callback_url. Runs
   * inside JobStore's transaction. Listeners are called at once, still inside it: they may
   * only schedule work for a later turn of the event loop, when the commit has happened.
   */
  enqueue(job: { id: string; callback_url: string | null; account_id: string | null }, now: number): void {
    if (job.callback_url === null) return;
    this.s.insert.run({ job_id: job.id, origin: new URL(job.callback_url).origin, account: job.account_id ?? '', now });
    for (const listener of this.listeners) listener();
  }

  /** `listener` hears of every delivery added (see `enqueue`). */
  onEnqueue(listener: () => void): void {
    this.listeners.push(listener);
  }

  async pendingLanes(): Promise<Lane[]> {
    return this.s.lanes.all() as Lane[];
  }

  async dueFor(lane: Lane, now: number, busy: string[], limit: number): Promise<DueDelivery[]> {
    return this.s.dueFor.all({ ...lane, now, busy: JSON.stringify(busy), limit }) as DueDelivery[];
  }

  /** When the earliest attempt after `now` is due; null when none is scheduled. */
  async nextDueAfter(now: number): Promise<number | null> {
    return this.s.nextAfter.get(now) as number | null;
  }

  record(result: AttemptResult): Promise<void> {
    return this.commits.run(() => {
      const delivery = this.row(result.jobId);
      // The job was deleted while the attempt was in flight: nothing is left to log it in.
      if (!delivery) return;
      this.s.addAttempt.run(result);
      const endedAt = result.startedAt + result.durationMs;
      const next = isDelivered(result.statusCode) ? null : nextAttemptAt(delivery.round_attempts + 1, endedAt);
      const state: DeliveryState = isDelivered(result.statusCode) ? 'delivered' : next === null ? 'failed' : 'pending';
      this.s.advance.run({ job_id: result.jobId, round: result.round, state, next_at: next });
    });
  }

  /** Nothing to hand back: nothing is claimed here (a delivery left unattempted is simply still due). */
  async release(): Promise<void> {}

  async get(jobId: string): Promise<DeliveryRow | undefined> {
    return this.row(jobId);
  }

  async attempts(jobId: string): Promise<DeliveryAttemptRow[]> {
    return this.s.attempts.all(jobId) as DeliveryAttemptRow[];
  }

  async clearOld(before: number, limit: number): Promise<number> {
    return this.s.clearOld.run(before, limit).changes;
  }

  async redeliver(jobId: string, now: number): Promise<DeliveryRow | undefined> {
    this.s.redeliver.run(now, jobId);
    return this.row(jobId);
  }

  private row(jobId: string): DeliveryRow | undefined {
    return this.s.get.get(jobId) as DeliveryRow | undefined;
  }
}
