import type pg from 'pg';
import { announceTableChange, type TableChanges } from './table-changes.js';
import { byLane, isDelivered, type AttemptResult, type DeliveryAttemptRow, type DeliveryRow, type DeliveryState, type DueDelivery, type Lane, type WebhookOutbox } from '../../webhooks/outbox.js';
import { nextAttemptAt } from '../../webhooks/schedule.js';
import { LANES } from '../webhook-lanes.js';
import { Listeners } from '../../core/listeners.js';

/**
 * The name redeliveries are announced under (table-changes.ts): every instance's sender
 * looks at the outbox again, so whichever is free sends the new round at once.
 */
const TABLE = 'webhook_deliveries';

/**
 * How long a claim holds. An attempt takes at most the sender's 10 s timeout plus a render
 * and a commit, and is recorded well within this; a claim still held after it belonged to an
 * instance that died (or lost the database), and the delivery is sent again by another.
 */
export const DEFAULT_CLAIM_LEASE_MS = 60_000;

const ROW = `job_id, origin, state, round, round_attempts, next_at, created_at`;

/**
 * The webhook outbox shared by the instances on one PostgreSQL (see ../outbox.ts for the port).
 * PgJobStore adds a row in the transaction that makes a job final; each instance's sender
 * claims the due deliveries it sends (`dueFor`, FOR UPDATE SKIP LOCKED), so a delivery is
 * attempted by one live instance at a time, and by another once the claim of a dead one
 * has lapsed.
 */
export class PgWebhookOutbox implements WebhookOutbox {
  private readonly listeners = new Listeners();

  /**
   * `pool` comes from connect() (its BIGINTs are numbers) and is its owner's to close.
   * `deviceId` is this instance, the holder of its claims. `changes` brings redeliveries
   * asked for elsewhere (its listen() is its owner's to call).
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly deviceId: string,
    changes: TableChanges,
    private readonly claimLeaseMs = DEFAULT_CLAIM_LEASE_MS,
  ) {
    changes.on(TABLE, () => {
      this.listeners.emit();
    });
  }

  onEnqueue(listener: () => void): void {
    this.listeners.on(listener);
  }

  async pendingLanes(): Promise<Lane[]> {
    const { rows } = await this.pool.query<Lane>(LANES);
    // In byte order whatever the database's collation: the sender takes turns by comparing them.
    return rows.sort(byLane);
  }

  async dueFor(lane: Lane, now: number, busy: string[], limit: number): Promise<DueDelivery[]> {
    // A row another instance is claiming right now is skipped, not waited for; one it claimed
    // and committed no longer matches (its claim_until is re-checked on the row as it is now).
    const { rows } = await this.pool.query<DueDelivery>(
      `WITH due AS (
         SELECT job_id FROM webhook_deliveries
         WHERE state = 'pending' AND account_id = $7 AND origin = $1 AND next_at <= $2
           AND (claim_until IS NULL OR claim_until <= $2) AND job_id <> ALL($3)
         ORDER BY next_at LIMIT $4 FOR UPDATE SKIP LOCKED),
       claimed AS (
         UPDATE webhook_deliveries d SET claimed_by = $5, claim_until = $2::bigint + $6::bigint
         FROM due WHERE d.job_id = due.job_id
         RETURNING d.job_id, d.origin, d.round, d.next_at)
       SELECT job_id, origin, round FROM claimed ORDER BY next_at, job_id`,
      [lane.origin, now, busy, limit, this.deviceId, this.claimLeaseMs, lane.account],
    );
    return rows;
  }

  async nextDueAfter(now: number): Promise<number | null> {
    // A claim that lapses is a delivery due again: its holder may have died.
    const { rows } = await this.pool.query<{ at: number | null }>(
      `SELECT LEAST(
         (SELECT MIN(next_at) FROM webhook_deliveries WHERE state = 'pending' AND next_at > $1),
         (SELECT MIN(claim_until) FROM webhook_deliveries WHERE state = 'pending' AND claim_until > $1)) AS at`,
      [now],
    );
    return rows[0]!.at;
  }

  async record(result: AttemptResult): Promise<void> {
    await this.tx(async (c) => {
      // Locked first: a late result of a lapsed claim and the new holder's never interleave.
      const { rows } = await c.query<DeliveryRow>(`SELECT ${ROW} FROM webhook_deliveries WHERE job_id = $1 FOR UPDATE`, [result.jobId]);
      const delivery = rows[0];
      // The job was deleted while the attempt was in flight: nothing is left to log it in.
      if (!delivery) return;
      await c.query(
        `INSERT INTO webhook_attempts (job_id, attempt, round, started_at, duration_ms, status_code, error, device_id)
         VALUES ($1, (SELECT COALESCE(MAX(attempt), 0) + 1 FROM webhook_attempts WHERE job_id = $1), $2, $3, $4, $5, $6, $7)`,
        [result.jobId, result.round, result.startedAt, result.durationMs, result.statusCode, result.error, this.deviceId],
      );
      const endedAt = result.startedAt + result.durationMs;
      const next = isDelivered(result.statusCode) ? null : nextAttemptAt(delivery.round_attempts + 1, endedAt);
      const state: DeliveryState = isDelivered(result.statusCode) ? 'delivered' : next === null ? 'failed' : 'pending';
      // Only the round the attempt belonged to moves on (a redelivery asked for meanwhile keeps
      // its own schedule), and only this instance's claim is let go: another's is its own.
      await c.query(
        `UPDATE webhook_deliveries SET
           state = CASE WHEN round = $2 THEN $3 ELSE state END,
           round_attempts = CASE WHEN round = $2 THEN round_attempts + 1 ELSE round_attempts END,
           next_at = CASE WHEN round = $2 THEN $4 ELSE next_at END,
           claim_until = CASE WHEN claimed_by = $5 THEN NULL ELSE claim_until END,
           claimed_by = CASE WHEN claimed_by = $5 THEN NULL ELSE claimed_by END
         WHERE job_id = $1`,
        [result.jobId, result.round, state, next, this.deviceId],
      );
    });
  }

  async release(jobIds: string[]): Promise<void> {
    if (jobIds.length === 0) return;
    await this.pool.query(
      `UPDATE webhook_deliveries SET claimed_by = NULL, claim_until = NULL WHERE job_id = ANY($1) AND claimed_by = $2`,
      [jobIds, this.deviceId],
    );
  }

  async get(jobId: string): Promise<DeliveryRow | undefined> {
    const { rows } = await this.pool.query<DeliveryRow>(`SELECT ${ROW} FROM webhook_deliveries WHERE job_id = $1`, [jobId]);
    return rows[0];
  }

  async attempts(jobId: string): Promise<DeliveryAttemptRow[]> {
    const { rows } = await this.pool.query<DeliveryAttemptRow>(
      `SELECT job_id, attempt, round, started_at, duration_ms, status_code, error FROM webhook_attempts WHERE job_id = $1 ORDER BY attempt`,
      [jobId],
    );
    return rows;
  }

  async clearOld(before: number, limit: number): Promise<number> {
    // Its attempt log goes with it (ON DELETE CASCADE). Instances sweeping at once share the work.
    const result = await this.pool.query(
      `DELETE FROM webhook_deliveries WHERE job_id IN (
         SELECT job_id FROM webhook_deliveries WHERE state <> 'pending' AND created_at < $1
         ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, limit],
    );
    return result.rowCount ?? 0;
  }

  async redeliver(jobId: string, now: number): Promise<DeliveryRow | undefined> {
    // A claim held stays: the attempt in flight for the old round ends and is recorded first.
    return this.tx(async (c) => {
      const { rows } = await c.query<DeliveryRow>(
        `UPDATE webhook_deliveries SET state = 'pending', round = round + 1, round_attempts = 0, next_at = $2
         WHERE job_id = $1 RETURNING ${ROW}`,
        [jobId, now],
      );
      if (rows[0]) await announceTableChange(c, TABLE);
      return rows[0];
    });
  }

  private async tx<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const value = await work(c);
      await c.query('COMMIT');
      c.release();
      return value;
    } catch (error) {
      // A connection that cannot even roll back is in no state to be reused: it is closed.
      const rolledBack = await c.query('ROLLBACK').then(() => true, () => false);
      c.release(!rolledBack);
      throw error;
    }
  }
}
