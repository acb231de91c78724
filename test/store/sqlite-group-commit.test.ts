/**
 * The group commit (group-commit.ts) on a database file: the group's work runs as one
 * transaction, and again a savepoint a piece only when a piece throws; its callers hear of
 * their commit only once the log is flushed, off the event loop (wal-sync.ts); commits made
 * while a flush runs wait and share the next one; a flush that fails stops everything
 * rather than answering.
 */
import Database from 'better-sqlite3';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryDatabase, openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import { GroupCommit } from '../../main/storage/sqlite/group-commit.js';
import { WalSync, WalSyncFailed, walSyncOf, type SyncFile } from '../../main/storage/sqlite/wal-sync.js';
import { tempDataDir } from '../support/harness.js';

let dir: string;
let db: Db;

beforeEach(() => {
  dir = tempDataDir();
  db = openDatabase(dir);
  db.exec(`CREATE TABLE notes (n INTEGER)`);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A flush the test ends by hand: `flushes` holds each one's path and its `done`. */
function heldSync() {
  const flushes: { path: string; done: (error: Error | null) => void }[] = [];
  const sync: SyncFile = (path, done) => flushes.push({ path, done });
  return { flushes, sync };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('a group commit with a log to flush', () => {
  it('settles its callers only once the flush is done, the rows already committed and the connection at FULL again', async () => {
    const { flushes, sync } = heldSync();
    const commits = new GroupCommit(db, undefined, new WalSync(`${db.name}-wal`, sync));
    const insert = db.prepare(`INSERT INTO notes VALUES (?)`);
    let settled = 0;
    const written = [1, 2].map((n) => commits.run(() => insert.run(n)).then(() => settled++));
    await turn();
    await turn();
    expect(flushes.map((f) => f.path)).toEqual([join(dir, 'chatbridge.db-wal')]);
    expect(settled).toBe(0);
    const reader = new Database(join(dir, 'chatbridge.db'), { readonly: true });
    try {
      expect(reader.prepare(`SELECT COUNT(*) FROM notes`).pluck().get()).toBe(2);
    } finally {
      reader.close();
    }
    // Only the group's own commit skips the wait for the disk.
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    flushes[0]!.done(null);
    await Promise.all(written);
    expect(settled).toBe(2);
  });

  it('on a connection its owner set below FULL, commits as it is set: no flush, and the setting kept', async () => {
    const { flushes, sync } = heldSync();
    const commits = new GroupCommit(db, undefined, new WalSync(`${db.name}-wal`, sync));
    db.pragma('synchronous = OFF');
    await commits.run(() => db.prepare(`INSERT INTO notes VALUES (1)`).run());
    expect(flushes).toHaveLength(0);
    expect(db.pragma('synchronous', { simple: true })).toBe(0);
  });

  it('commits what comes while a flush runs once that flush ends, in one transaction and one more flush', async () => {
    const { flushes, sync } = heldSync();
    const commits = new GroupCommit(db, undefined, new WalSync(`${db.name}-wal`, sync));
    const insert = db.prepare(`INSERT INTO notes VALUES (?)`);
    const first = commits.run(() => insert.run(0));
    await turn();
    expect(flushes).toHaveLength(1);
    // Three turns while the first flush runs: nothing of them is written yet.
    const later: Promise<unknown>[] = [];
    for (const n of [1, 2, 3]) {
      later.push(commits.run(() => insert.run(n)));
      await turn();
    }
    expect(db.prepare(`SELECT COUNT(*) FROM notes`).pluck().get()).toBe(1);
    flushes[0]!.done(null);
    await first;
    expect(db.prepare(`SELECT COUNT(*) FROM notes`).pluck().get()).toBe(4);
    expect(flushes).toHaveLength(2);
    flushes[1]!.done(null);
    await Promise.all(later);
  });

  it('a piece of work that throws rejects at once with its savepoint rolled back; the others wait for the flush', async () => {
    const { flushes, sync } = heldSync();
    const commits = new GroupCommit(db, undefined, new WalSync(`${db.name}-wal`, sync));
    const insert = db.prepare(`INSERT INTO notes VALUES (?)`);
    const kept = commits.run(() => insert.run(1));
    const refused = commits.run(() => {
      insert.run(2);
      throw new Error('refused');
    });
    // Rejected work wrote nothing that lasts, so it need not wait for the disk.
    await expect(refused).rejects.toThrow('refused');
    expect(flushes).toHaveLength(1);
    expect(db.prepare(`SELECT n FROM notes`).pluck().all()).toEqual([1]);
    flushes[0]!.done(null);
    await kept;
  });
});

describe('a group commit', () => {
  it('runs each piece once, in the one transaction of the group, when none throws', async () => {
    const commits = new GroupCommit(db);
    const insert = db.prepare(`INSERT INTO notes VALUES (?)`);
    let runs = 0;
    const work = (n: number) => () => {
      runs++;
      // One transaction for the group, with no savepoint of its own around the piece.
      expect(db.prepare(`SELECT COUNT(*) FROM notes`).pluck().get()).toBe(n - 1);
      return insert.run(n).changes;
    };
    expect(await Promise.all([1, 2, 3].map((n) => commits.run(work(n))))).toEqual([1, 1, 1]);
    expect(runs).toBe(3);
  });

  it('when a piece throws, rolls the group back, lets its owner resynchronise, and runs it again a savepoint a piece', async () => {
    let rollbacks = 0;
    const commits = new GroupCommit(db, () => rollbacks++);
    const insert = db.prepare(`INSERT INTO notes VALUES (?)`);
    const runs: number[] = [];
    const outcomes = await Promise.allSettled(
      [1, 2, 3].map((n) =>
        commits.run(() => {
          runs.push(n);
          insert.run(n);
          if (n === 2) throw new Error('two is refused');
          return n;
        }),
      ),
    );
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([1, 'two is refused', 3]);
    expect(runs).toEqual([1, 2, 1, 2, 3]);
    // Once for the group's first run, once for the piece rolled back alone.
    expect(rollbacks).toBe(2);
    expect(db.prepare(`SELECT n FROM notes ORDER BY n`).pluck().all()).toEqual([1, 3]);
  });
});

describe('the log sync', () => {
  it('stops with WalSyncFailed when a flush fails, and tells no caller its commit is on disk', () => {
    const failing = new WalSync('/nowhere/chatbridge.db-wal', (_path, done) => done(new Error('EIO: i/o error')));
    let told = false;
    expect(() => failing.after(() => (told = true))).toThrow(WalSyncFailed);
    expect(told).toBe(false);
  });

  it('flushes the real log file of a database in WAL mode, and takes a log that is gone for flushed; one in memory has none', async () => {
    const sync = walSyncOf(db);
    expect(sync).toBeInstanceOf(WalSync);
    expect(walSyncOf(db)).toBe(sync); // shared by the database's group commits
    expect(existsSync(`${db.name}-wal`)).toBe(true);
    db.prepare(`INSERT INTO notes VALUES (1)`).run();
    await new Promise<void>((resolve) => sync!.after(resolve));
    // A log that is gone was copied into the database and synced by the last connection to close.
    await new Promise<void>((resolve) => new WalSync(join(dir, 'gone.db-wal')).after(resolve));
    const memory = memoryDatabase();
    try {
      expect(walSyncOf(memory)).toBeNull();
    } finally {
      memory.close();
    }
  });
});
