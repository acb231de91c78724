import type pg from 'pg';
import type { DeltaRow } from '../../core/jobs.js';
import { ChannelListener } from './channel-listener.js';

/**
 * The channel on which an instance announces each piece of an answer it stored, as
 * `[device, job id, seq]` JSON. Delivered at the commit, so nobody hears of a piece that
 * rolled back; a hint only (anyone who can connect may send one): the row is read back.
 */
const CHANNEL = 'chatbridge_deltas';

/**
 * Stores a piece while the attempt is the job's open one, numbered after the last, and
 * announces it, in one statement (one round trip, its own transaction). FOR SHARE holds the
 * job row against a final move until the commit, and a move that commits first is seen when
 * the lock is granted: no piece is stored for a job that has moved on.
 */
export async function appendDelta(pool: pg.Pool, deviceId: string, jobId: string, attempt: number, text: string): Promise<DeltaRow | null> {
  const { rows } = await pool.query<DeltaRow>(
    `WITH open AS (SELECT id FROM jobs WHERE id = $1 AND status = 'dispatched' AND attempts = $2 FOR SHARE),
     stored AS (
       INSERT INTO job_deltas (job_id, seq, attempt, text)
       SELECT open.id, COALESCE((SELECT MAX(seq) FROM job_deltas WHERE job_id = $1), 0) + 1, $2, $3 FROM open
       RETURNING job_id, seq, attempt, text)
     SELECT stored.*, pg_notify('${CHANNEL}', json_build_array($4::text, stored.job_id, stored.seq)::text) FROM stored`,
    [jobId, attempt, text, deviceId],
  );
  const row = rows[0];
  return row ? { job_id: row.job_id, seq: row.seq, attempt: row.attempt, text: row.text } : null;
}

export async function deltasSince(pool: pg.Pool, jobId: string, afterSeq: number): Promise<DeltaRow[]> {
  const { rows } = await pool.query<DeltaRow>(
    `SELECT job_id, seq, attempt, text FROM job_deltas WHERE job_id = $1 AND seq > $2 ORDER BY seq`,
    [jobId, afterSeq],
  );
  return rows;
}

export async function dropDeltas(pool: pg.Pool, jobId: string): Promise<void> {
  await pool.query(`DELETE FROM job_deltas WHERE job_id = $1`, [jobId]);
}

export async function dropFinishedDeltas(pool: pg.Pool): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM job_deltas WHERE job_id IN (SELECT id FROM jobs WHERE status NOT IN ('queued', 'dispatched'))`,
  );
  return rowCount ?? 0;
}

/** A notice as appendDelta announces it, or an error saying why it is not one. */
function parseNotice(payload: string): { device: string; jobId: string; seq: number } {
  const value: unknown = JSON.parse(payload);
  if (!Array.isArray(value) || value.length !== 3) throw new Error('not a [device, job, seq] list');
  const [device, jobId, seq] = value as unknown[];
  if (typeof device !== 'string' || typeof jobId !== 'string' || jobId.length === 0 || jobId.length > 100) throw new Error('no device or job id');
  if (!Number.isSafeInteger(seq) || (seq as number) < 1) throw new Error('no piece number');
  return { device, jobId, seq: seq as number };
}

/**
 * Hears the pieces other instances store, reads each back, and hands on the row: a piece
 * the table no longer holds (its job ended since) is handed on as nothing, and the job's
 * final event brings the rest. A piece announced while the listening connection was lost is
 * not heard; a follower that sees the gap at the next one reads them again. Holds one
 * connection of the pool.
 */
export class DeltaNotices {
  private readonly listener: ChannelListener;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly deviceId: string,
    private readonly publish: (row: DeltaRow) => void,
  ) {
    this.listener = new ChannelListener(pool, CHANNEL, (payload) => this.heard(parseNotice(payload)));
  }

  listen(): Promise<void> {
    return this.listener.listen();
  }

  close(): void {
    this.closed = true;
    this.listener.close();
  }

  private heard({ device, jobId, seq }: { device: string; jobId: string; seq: number }): void {
    if (device === this.deviceId) return;
    // A read that fails (the pool closing) loses the piece, as a lost notice would.
    void this.pool
      .query<DeltaRow>(`SELECT job_id, seq, attempt, text FROM job_deltas WHERE job_id = $1 AND seq = $2`, [jobId, seq])
      .then(({ rows }) => {
        if (rows[0] && !this.closed) this.publish(rows[0]);
      }, () => {});
  }
}
