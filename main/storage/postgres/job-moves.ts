import type pg from 'pg';
import type { AttemptRow, JobRow, Moved } from '../../core/jobs.js';
import { StaleMove, type JobMove } from '../../queue/job-moves.js';

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
    `SELECT job_id, attempt, agent_id, provider, started_at, ended_at, outcome, error_code, detail, sent_conversation, sent_turns_before
     FROM attempts WHERE job_id = $1 ORDER BY attempt`,
    [jobId],
  );
  return rows;
}

/**
 * Writes `move` in one statement (one round trip), as graphile-worker writes a move: the job's
 * changed columns only where it still has the status the move was planned from, and the other writes only
 * if the job's was made (each selects from it); the attempt it ends only while open. If the
 * job or the attempt is no longer as planned, the move is refused and its transaction rolled
 * back. An attempt it starts is `deviceId`'s (its device re-queues it if lost).
 */
export async function applyMove(c: pg.PoolClient, move: JobMove, deviceId: string): Promise<Moved> {
  const { job, from, start } = move.event;
  const params: unknown[] = [];
  const values = (row: readonly unknown[]) => row.map((value) => `$${params.push(value)}`).join(', ');
  const writes = [
    `job AS (UPDATE jobs SET (${Object.keys(move.set).join(', ')}) = ROW(${values(Object.values(move.set))})
       WHERE (id, status) = (${values([job.id, from])}) RETURNING 1)`,
  ];
  if (move.ends) {
    const { job_id, attempt, ended_at, outcome, error_code, detail } = move.ends;
    writes.push(
      `ended AS (UPDATE attempts SET (ended_at, outcome, error_code, detail) = ROW(${values([ended_at, outcome, error_code, detail])})
         WHERE (job_id, attempt) = (${values([job_id, attempt])}) AND ended_at IS NULL AND EXISTS (SELECT FROM job) RETURNING 1)`,
    );
  }
  if (start) {
    writes.push(
      `started AS (INSERT INTO attempts (job_id, attempt, agent_id, provider, device_id, started_at)
         SELECT ${values([start.job_id, start.attempt, start.agent_id, start.provider, deviceId, start.started_at])} FROM job)`,
    );
  }
  if (move.conversation) {
    const { id, agent_id, provider, address, created_at, updated_at, account_id } = move.conversation;
    writes.push(
      `conversation AS (INSERT INTO conversations (id, agent_id, provider, address, created_at, updated_at, account_id)
         SELECT ${values([id, agent_id, provider, address, created_at, updated_at, account_id])} FROM job
         ON CONFLICT (id) DO UPDATE SET address = excluded.address, updated_at = excluded.updated_at)`,
    );
  }
  if (move.delivery) {
    const { job_id, origin, account_id, due_at } = move.delivery;
    writes.push(
      `delivery AS (INSERT INTO webhook_deliveries (job_id, origin, account_id, state, round, round_attempts, next_at, created_at)
         SELECT ${values([job_id, origin, account_id])}, 'pending', 1, 0, ${values([due_at, due_at])} FROM job)`,
    );
  }
  const found = await one<{ job: boolean; ended: boolean }>(
    c,
    `WITH ${writes.join(',\n')}
     SELECT EXISTS (SELECT FROM job) AS job, ${move.ends ? 'EXISTS (SELECT FROM ended)' : 'true'} AS ended`,
    params,
  );
  if (!found!.job) throw new StaleMove(job.id, `no longer ${from}`);
  if (!found!.ended) throw new StaleMove(job.id, `attempt ${move.ends!.attempt} already closed`);
  return { job, from };
}

/** The first row of a query's answer (undefined: none). */
export async function one<T extends pg.QueryResultRow>(db: pg.Pool | pg.PoolClient, sql: string, params: unknown[] = []): Promise<T | undefined> {
  const { rows } = await db.query<T>(sql, params);
  return rows[0];
}
