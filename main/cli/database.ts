import { systemClock } from '../core/clock.js';
import { resolveDataDir } from '../core/data-dir.js';
import { commandDataDir } from './command-data-dir.js';
import { randomIds } from '../core/ids.js';
import { withStorage, type Storage } from '../storage/storage.js';

/** `--database postgres://…`: the PostgreSQL several instances share; every command takes it. */
export const DATABASE_OPTION = { database: { type: 'string' } } as const;

/** The shared database named by --database or CHATBRIDGE_DATABASE_URL; undefined means SQLite in the data dir. */
export function databaseUrl(values: { database?: string | undefined }): string | undefined {
  return values.database ?? (process.env.CHATBRIDGE_DATABASE_URL || undefined);
}

/**
 * Runs a command's `work` on the storage its flags name: the shared PostgreSQL with
 * --database (brought up to this version's schema first, as serve does, so a command run
 * before any instance started still finds its tables; running instances hear a change at
 * once), else the data dir (a running server sees a change within a second). `readOnly`
 * work refuses a data dir that does not exist rather than create it.
 */
export function withCommandStorage<T>(
  values: { database?: string | undefined; 'data-dir'?: string | undefined },
  work: (storage: Storage) => Promise<T>,
  { readOnly = false } = {},
): Promise<T> {
  const options = { dataDir: dataDirOf(values), databaseUrl: databaseUrl(values), clock: systemClock, ids: randomIds, readOnly };
  return withStorage(options, work);
}

/**
 * The data dir a command on storage acts on (commandDataDir); beside a shared database it
 * holds only this machine's own things, and no simulation is meant.
 */
export function dataDirOf(values: { database?: string | undefined; 'data-dir'?: string | undefined }): string {
  return databaseUrl(values) ? resolveDataDir(values['data-dir']) : commandDataDir(values['data-dir']);
}
