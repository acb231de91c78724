import { noDefaultPauseIn, resolveDataDir } from '../core/data-dir.js';
import { openDatabase } from '../storage/sqlite/db.js';
import { TableChanges } from '../storage/postgres/table-changes.js';
import { PgSettingsStore } from '../storage/postgres/settings-store.js';
import { type SettingsStore } from '../settings/settings-store.js';
import { databaseUrl, withSharedDatabase } from './database.js';
import { SqliteSettingsStore } from '../storage/sqlite/settings-store.js';

/**
 * Runs `work` on the settings the command's flags name: the shared PostgreSQL with
 * --database (running instances hear the change at once), else the data dir (a running
 * server sees it within a second).
 */
export async function withSettings<T>(
  values: { database?: string | undefined; 'data-dir'?: string | undefined },
  work: (settings: SettingsStore) => Promise<T>,
): Promise<T> {
  const url = databaseUrl(values);
  if (url) {
    return withSharedDatabase(url, async (pool) => {
      // A command never listens: only load() and the setters read, and each reports its own errors.
      const settings = new PgSettingsStore(pool, new TableChanges(pool), (error) => {
        throw error;
      });
      await settings.load();
      return work(settings);
    });
  }
  const dataDir = resolveDataDir(values['data-dir']);
  noDefaultPauseIn(dataDir);
  const db = openDatabase(dataDir);
  try {
    return await work(new SqliteSettingsStore(db));
  } finally {
    db.close();
  }
}
