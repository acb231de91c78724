import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { StorageRefused } from '../refused.js';
import { MIGRATIONS } from './migrations/index.js';

export type Db = Database.Database;

/** The data dir cannot be created or its database opened: a user-facing condition. */
export class DataDirError extends StorageRefused {}

const DB_FILE = 'chatbridge.db';

/** Whether the data dir holds a database yet (anything set up there). */
export function holdsDatabase(dataDir: string): boolean {
  return existsSync(join(dataDir, DB_FILE));
}

/**
 * Opens (creating if needed) the database in the data dir. WAL with synchronous=FULL: a
 * commit is on disk before it returns, so an accepted job survives power loss, not only a
 * killed process. Submissions are the exception that keeps the rule: their group commits
 * (GroupCommit) flush the log off the event loop and answer once it is on disk (WalSync).
 */
export function openDatabase(dataDir: string, { create = true }: { create?: boolean } = {}): Db {
  let db: Db;
  // Commands that only read must not leave a data dir behind where there was none.
  if (!create && !holdsDatabase(dataDir)) {
    throw new DataDirError(`Nothing is set up in ${dataDir} yet (no ChatBridge data there).`);
  }
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = join(dataDir, DB_FILE);
    ownerOnly(file);
    db = new Database(file, { timeout: 5000 });
  } catch (error) {
    throw new DataDirError(`Cannot use the data dir ${dataDir}: ${(error as Error).message}`);
  }
  // Only takes effect on a database without tables yet; older ones get it in reclaimable().
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  reclaimable(db);
  return db;
}

/** A fresh database in memory, migrated: the queue's unit tests run on the real store without a disk. */
export function memoryDatabase(): Db {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

const INCREMENTAL = 2;

/**
 * Pages freed by pruning and deletion are handed back to the file system by
 * `reclaimSpace`, which needs `auto_vacuum = INCREMENTAL`. A database created before that
 * setting gets it through one full VACUUM, the first time this version opens it. Busy
 * (another process holds it open in a transaction), it is tried again at the next open.
 */
function reclaimable(db: Db): void {
  if (db.pragma('auto_vacuum', { simple: true }) === INCREMENTAL) return;
  try {
    db.exec('VACUUM');
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
  }
}

/**
 * Returns up to `pages` free pages to the file system, in one short write; returns how
 * many free pages are left. Called in small steps so no request waits long behind it.
 */
export function reclaimSpace(db: Db, pages: number): number {
  db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
  return db.pragma('freelist_count', { simple: true }) as number;
}

/**
 * The database file is made 0600 before SQLite opens it: SQLite creates its -wal and -shm
 * files with the database file's own mode, whatever the umask. Files left 0644 by an
 * older version are set back to 0600.
 */
function ownerOnly(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(f, 0o600);
    } catch (error) {
      // The last connection to close removes -wal and -shm.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/**
 * Each step reads the version and applies one migration under the write lock, so that
 * processes opening a new data dir at the same moment (the server and a command) never
 * run the same migration twice.
 */
function migrate(db: Db): void {
  const step = db.transaction((): boolean => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) {
      throw new Error(
        `The database was written by a newer ChatBridge (schema ${version}, this one knows ${MIGRATIONS.length}).`,
      );
    }
    if (version === MIGRATIONS.length) return true;
    db.exec(MIGRATIONS[version]!);
    db.pragma(`user_version = ${version + 1}`);
    return false;
  });
  while (!step.immediate());
}
