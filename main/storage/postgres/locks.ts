import type pg from 'pg';

/**
 * The locks instances take turns by, each a row of the `locks` table held until its
 * transaction ends. Rows of our own rather than advisory keys: any role connected to the
 * database may take any advisory key (and so stop the sweep or hang every submission), but
 * locking a row takes rights on our table. A wait for one is bounded by the connection's
 * lock_timeout (connect.ts), and a transaction left idle while holding one is ended by its
 * idle_in_transaction_session_timeout.
 */

/**
 * The lease sweep's lock, taken without waiting: of the live devices sweeping at once one
 * does the work and the others return at once instead of queuing to find nothing left.
 * Resolves with whether this transaction holds it.
 */
export async function trySweepLock(c: pg.PoolClient): Promise<boolean> {
  const { rowCount } = await c.query(`SELECT 1 FROM locks WHERE name = 'sweep' FOR UPDATE SKIP LOCKED`);
  return rowCount === 1;
}

/**
 * The hourly caps' lock: dispatches with caps take turns, so each one's count of the hour's
 * starts includes every start committed before it.
 */
export async function capsLock(c: pg.PoolClient): Promise<void> {
  await c.query(`SELECT 1 FROM locks WHERE name = 'caps' FOR UPDATE`);
}

/**
 * An account's queue lock (the personal profile's account is null): submissions take it
 * before counting the account's queued jobs, so two instances each seeing 999 cannot both
 * add the 1 000th and 1 001st. Its row is made by the first submission of the account; the
 * upsert locks it whether it made it or found it.
 */
export async function queueLock(c: pg.PoolClient, account: string | null): Promise<void> {
  await c.query(`INSERT INTO locks AS l (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = l.name`, [`queue ${account ?? ''}`]);
}
