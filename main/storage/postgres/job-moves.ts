import type pg from 'pg';
import type { AttemptRow, JobRow, Moved } from '../../core/jobs.js';
import { MOVED_COLUMNS, StaleMove, type JobMove } from '../../queue/job-moves.js';

/**
 * A job move on PostgreSQL, inside the move's transaction: the rows its plan is made from
 * (queue/job-moves.ts), read with the job locked, and the plan written as guarded
 * statements, each touching a row only if it is still as the plan found it.
 */

/** The job, locked to the end of the transaction. */
export function lockJob(c: pg.PoolClient, id: string): Promise<JobRow | undefined> {
  return one<JobRow>(c, `SELECT * FROM jobs WHERE id = $1 FOR UPDATE`, [id]);
}

/** The job's attempts, oldest first (without the device that ran each: it is this engine's). */
export async function attemptsOf(db: pg.Pool | pg.PoolClient, jobId: string): Promise<AttemptRow[]> {
  const { rows } = await db.query<AttemptRow>(
    `SELECT job_id, attempt, agent_id, provider, started_at, ended_at, outcome, error_code, detail
     FROM attempts WHERE job_id = $1 ORDER BY attempt`,
    [jobId],
  );
  return rows;
}

const WRITE_JOB = `UPDATE jobs SET ${MOVED_COLUMNS.map((column, i) => `${column} = $${i + 3}`).join(', ')} WHERE id = $1 AND status = $2`;

/** Writes `move`; an attempt it starts is `deviceId`'s (its device re-queues it if lost). */
export async function applyMove(c: pg.PoolClient, move: JobMove, deviceId: string): Promise<Moved> {
  const { job, from, start } = move.event;
  const written = await c.query(WRITE_JOB, [job.id, from, ...MOVED_COLUMNS.map((column) => job[column])]);
  if (written.rowCount !== 1) throw new StaleMove(job.id, `no longer ${from}`);
  if (move.ends) {
    const { job_id, attempt, ended_at, outcome, error_code, detail } = move.ends;
    const closed = await c.query(
      `UPDATE attempts SET ended_at = $3, outcome = $4, error_code = $5, detail = $6 WHERE job_id = $1 AND attempt = $2 AND ended_at IS NULL`,
      [job_id, attempt, ended_at, outcome, error_code, detail],
    );
    if (closed.rowCount !== 1) throw new StaleMove(job.id, `attempt ${attempt} already closed`);
  }
  if (start) {
    await c.query(`INSERT INTO attempts (job_id, attempt, agent_id, provider, device_id, started_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
      start.job_id,
      start.attempt,
      start.agent_id,
      start.provider,
      deviceId,
      start.started_at,
    ]);
  }
  if (move.conversation) {
    const { id, agent_id, provider, address, created_at, updated_at, account_id } = move.conversation;
    await c.query(
      `INSERT INTO conversations (id, agent_id, provider, address, created_at, updated_at, account_id) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (id) DO UPDATE SET address = excluded.address, updated_at = excluded.updated_at`,
      [id, agent_id, provider, address, created_at, updated_at, account_id],
    );
  }
  if (move.delivery) {
    const { job_id, origin, account_id, due_at } = move.delivery;
    await c.query(
      `INSERT INTO webhook_deliveries (job_id, origin, account_id, state, round, round_attempts, next_at, created_at)
       VALUES ($1, $2, $3, 'pending', 1, 0, $4, $4)`,
      [job_id, origin, account_id, due_at],
    );
  }
  return { job, from };
}

/** The first row of a query's answer (undefined: none). */
export async function one<T extends pg.QueryResultRow>(db: pg.Pool | pg.PoolClient, sql: string, params: unknown[] = []): Promise<T | undefined> {
  const { rows } = await db.query<T>(sql, params);
  return rows[0];
}
