import { openDatabase, type Db } from '../../main/storage/sqlite/db.js';

/**
 * Opens the data dir's database on a connection of the test's own, beside any service that
 * runs on it, for what no port shows or does: the rows as stored on disk, a data dir made
 * to look like an older version's, a large history seeded without an fsync per move.
 */
export async function withDataDirDb<T>(dataDir: string, work: (db: Db) => T | Promise<T>): Promise<T> {
  const db = openDatabase(dataDir, { create: false });
  try {
    return await work(db);
  } finally {
    db.close();
  }
}
