import { isDelivered, type AttemptResult, type DeliveryAttemptRow, type DeliveryRow, type DeliveryState, type DueDelivery, type Lane, type WebhookOutbox } from '../../webhooks/outbox.js';
import { nextAttemptAt } from '../../webhooks/schedule.js';
import type { DeliveryDue } from '../../queue/job-moves.js';
import { LANES } from '../webhook-lanes.js';
import type { Db } from './db.js';
import { GroupCommit } from './group-commit.js';
import { Listeners } from '../../core/listeners.js';

/**
 * The webhook outbox of one machine, in the data dir's SQLite database. SqliteJobStore adds
 * a row with `enqueue`, inside the transaction that makes a job final. One sender drains it
 * (the running server), so nothing is claimed: the sender's own `busy` list keeps a
 * delivery from being attempted twice at once.
 */
export class SqliteWebhookOutbox implements WebhookOutbox {
  private readonly listeners = new Listeners();
  /** Attempt results arriving together share one commit (and its fsync). */
  private readonly commits: GroupCommit;
  private readonly s;

  constructor(db: Db) {
    this.commits = new GroupCommit(db);
    this.s = {
      insert: db.prepare(
        `INSERT INTO webhook_deliveries (job_id, origin, account_id, state, round, round_attempts, next_at, created_at)
         VALUES (@job_id, @origin, @account_id, 'pending', 1, 0, @due_at, @due_at)`,
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
   * Adds the delivery of a job that has just become final (queue/job-moves.ts plans it). Runs
   * inside JobStore's transaction. Listeners are called at once, still inside it: they may
   * only schedule work for a later turn of the event loop, when the commit has happened.
   */
  enqueue(delivery: DeliveryDue): void {
    this.s.insert.run(delivery);
    this.listeners.emit();
  }

  /** `listener` hears of every delivery added (see `enqueue`). */
  onEnqueue(listener: () => void): void {
    this.listeners.on(listener);
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
