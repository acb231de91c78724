import { profileNamed } from '../api/profile.js';
import { systemClock } from '../core/clock.js';
import { resolveDataDir } from '../core/data-dir.js';
import { randomIds } from '../core/ids.js';
import { type AccountStore } from '../keys/account-store.js';
import { type KeyStore } from '../keys/key-store.js';
import { PgAccountStore } from '../storage/postgres/account-store.js';
import { PgKeyStore } from '../storage/postgres/key-store.js';
import { openDatabase } from '../storage/sqlite/db.js';
import { TableChanges } from '../storage/postgres/table-changes.js';
import { UsageError } from './args.js';
import { databaseUrl, withSharedDatabase } from './database.js';
import { SqliteAccountStore } from '../storage/sqlite/account-store.js';
import { SqliteKeyStore } from '../storage/sqlite/key-store.js';
import { storedDatabaseProfile } from '../storage/postgres/profile.js';
import { storedProfile } from '../storage/sqlite/profile.js';

/** The keys and accounts a command works on, and whether they are a hosted install's. */
export interface KeysAndAccounts {
  keys: KeyStore;
  accounts: AccountStore;
  /** Profile H: keys belong to accounts. */
  hosted: boolean;
  /** "The data dir …" or "The database …", for messages. */
  place: string;
  /** How to start it once in the hosted profile, for messages. */
  serveHosted: string;
}

/**
 * Runs `work` on the keys and accounts the command's flags name: the shared PostgreSQL with
 * --database (running instances hear the change at once), else the data dir (a running
 * server sees it within a second). `readOnly` work refuses a data dir that does not exist
 * rather than create it.
 */
export async function withKeys<T>(
  values: { database?: string | undefined; 'data-dir'?: string | undefined },
  work: (stores: KeysAndAccounts) => Promise<T>,
  { readOnly = false } = {},
): Promise<T> {
  const url = databaseUrl(values);
  if (url) {
    return withSharedDatabase(url, async (pool) => {
      // A command never listens: only load() and the writes read, and each reports its own errors.
      const changes = new TableChanges(pool);
      const fail = (error: Error) => {
        throw error;
      };
      const accounts = new PgAccountStore(pool, changes, systemClock, randomIds, fail);
      const keys = new PgKeyStore(pool, changes, accounts, systemClock, randomIds, fail);
      await accounts.load();
      await keys.load();
      const database = decodeURIComponent(new URL(url).pathname.slice(1));
      return work({
        keys,
        accounts,
        hosted: profileNamed(await storedDatabaseProfile(pool)).accounts,
        place: `The database ${database}`,
        serveHosted: 'start an instance on it once with serve --profile hosted --database URL',
      });
    });
  }
  const dataDir = resolveDataDir(values['data-dir']);
  const db = openDatabase(dataDir, { create: !readOnly });
  try {
    const accounts = new SqliteAccountStore(db, systemClock, randomIds);
    return await work({
      keys: new SqliteKeyStore(db, accounts, systemClock, randomIds),
      accounts,
      hosted: profileNamed(storedProfile(db)).accounts,
      place: `The data dir ${dataDir}`,
      serveHosted: 'start it once with serve --profile hosted',
    });
  } finally {
    db.close();
  }
}

/** Accounts exist in the hosted profile only: a personal install is one account. */
export function requireHosted({ hosted, place, serveHosted }: KeysAndAccounts): void {
  if (!hosted) throw new UsageError(`${place} is not a hosted one (a personal install is one account): ${serveHosted}.`);
}
