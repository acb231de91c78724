import type pg from 'pg';
import { connect } from '../storage/postgres/connect.js';
import { migrate } from '../storage/postgres/schema.js';

/** `--database postgres://…`: the PostgreSQL several instances share; every command takes it. */
export const DATABASE_OPTION = { database: { type: 'string' } } as const;

/** The shared database named by --database or CHATBRIDGE_DATABASE_URL; undefined means SQLite in the data dir. */
export function databaseUrl(values: { database?: string | undefined }): string | undefined {
  return values.database ?? (process.env.CHATBRIDGE_DATABASE_URL || undefined);
}

/**
 * Runs a command's `work` on the shared database, brought up to this version's schema first
 * (as serve does, so a command run before any instance started still finds its tables).
 */
export async function withSharedDatabase<T>(url: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = await connect(url, { max: 2 });
  try {
    await migrate(pool);
    return await work(pool);
  } finally {
    await pool.end();
  }
}
