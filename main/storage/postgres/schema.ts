import type pg from 'pg';
import { PgConnectError } from './connect.js';
import { MIGRATIONS } from './migrations/index.js';

/** The schema version this ChatBridge writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * One key for every ChatBridge migrating this database: instances starting together take
 * turns, and the second finds the work done. Advisory, since it is taken before any table
 * exists; another role could take it too, so it is waited for at most MIGRATION_TIMEOUT (a
 * service checks the grants before it migrates, and `migrate` closes them: see grants.ts).
 */
const MIGRATION_LOCK = 0x63_62_6d_69_67_72_61_74n; // "cbmigrat"

/** How long a migration may wait for the lock, and each of its steps may run. */
const MIGRATION_TIMEOUT = '10min';

/** Brings the schema up to SCHEMA_VERSION; returns the version found and the version left. */
export async function migrate(pool: pg.Pool): Promise<{ from: number; to: number }> {
  const client = await pool.connect();
  try {
    // Another instance's migration may hold the lock for a while, and a step may rewrite a
    // big table: this connection waits and runs longer than a request's (connect.ts).
    await client.query(`SET lock_timeout = '${MIGRATION_TIMEOUT}'; SET statement_timeout = '${MIGRATION_TIMEOUT}'`);
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS chatbridge_schema (version INTEGER NOT NULL)');
      const found = await client.query<{ version: number }>('SELECT version FROM chatbridge_schema');
      const from = found.rows[0]?.version ?? 0;
      if (from > MIGRATIONS.length) {
        throw new PgConnectError(`The database was written by a newer ChatBridge (schema ${from}, this one knows ${MIGRATIONS.length}).`);
      }
      if (found.rows.length === 0) await client.query('INSERT INTO chatbridge_schema (version) VALUES (0)');
      // Each step commits with its version, so an interrupted upgrade resumes where it stopped.
      for (let version = from; version < MIGRATIONS.length; version++) {
        await client.query('BEGIN');
        try {
          await client.query(MIGRATIONS[version]!);
          await client.query('UPDATE chatbridge_schema SET version = $1', [version + 1]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
      return { from, to: MIGRATIONS.length };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]);
    }
  } finally {
    // A connection that cannot take back the longer timeouts is closed rather than reused.
    const reset = await client.query('RESET lock_timeout; RESET statement_timeout').then(() => undefined, (error: Error) => error);
    client.release(reset);
  }
}
