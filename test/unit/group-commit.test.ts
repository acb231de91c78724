/**
 * GroupCommit on a database file: a group commits without SQLite's own fsync and settles
 * only once the WAL has been synced off the event loop; the connection's other writers keep
 * synchronous=FULL; groups committed while a sync runs wait for the next one.
 */
import { open } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { memoryDatabase, openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import { GroupCommit } from '../../main/storage/sqlite/group-commit.js';
import { tempDataDir } from '../support/harness.js';

const FULL = 2;
let dir: string;
let db: Db;

beforeEach(() => {
  dir = tempDataDir();
  db = openDatabase(dir);
  db.exec('CREATE TABLE t (n INTEGER)');
});
afterEach(() => {
  vi.restoreAllMocks();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The prototype of Node's FileHandle, whose datasync is the WAL's sync. */
async function fileHandleProto(): Promise<{ datasync(): Promise<void> }> {
  const file = await open(join(dir, 'chatbridge.db'), 'r');
  await file.close();
  return Object.getPrototypeOf(file) as { datasync(): Promise<void> };
}

it('settles a group only after the WAL is synced, and leaves the connection at synchronous=FULL', async () => {
  const proto = await fileHandleProto();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const real = proto.datasync;
  const datasync = vi.spyOn(proto, 'datasync').mockImplementation(async function (this: { datasync(): Promise<void> }) {
    await held;
    return real.call(this);
  });
  const commits = new GroupCommit(db);
  let settled = false;
  const first = commits.run(() => db.prepare('INSERT INTO t VALUES (1)').run().changes).then((n) => ((settled = true), n));
  await new Promise((resolve) => setTimeout(resolve, 20));
  // Committed (another reader sees it), not yet answered for.
  expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(1);
  expect(db.pragma('synchronous', { simple: true })).toBe(FULL);
  expect(settled).toBe(false);
  // Two more groups while the sync runs: they share the next one.
  const second = commits.run(() => db.prepare('INSERT INTO t VALUES (2)').run().changes);
  await new Promise((resolve) => setImmediate(resolve));
  const third = commits.run(() => db.prepare('INSERT INTO t VALUES (3)').run().changes);
  release();
  expect(await Promise.all([first, second, third])).toEqual([1, 1, 1]);
  expect(datasync).toHaveBeenCalledTimes(2);
});

it('rejects the group when the WAL cannot be synced', async () => {
  const proto = await fileHandleProto();
  vi.spyOn(proto, 'datasync').mockRejectedValue(Object.assign(new Error('EIO'), { code: 'EIO' }));
  const commits = new GroupCommit(db);
  await expect(commits.run(() => db.prepare('INSERT INTO t VALUES (1)').run())).rejects.toThrow('EIO');
});

it('settles at once in memory, where there is no WAL to sync', async () => {
  const memory = memoryDatabase();
  memory.exec('CREATE TABLE t (n INTEGER)');
  const commits = new GroupCommit(memory);
  expect(await commits.run(() => memory.prepare('INSERT INTO t VALUES (1)').run().changes)).toBe(1);
  memory.close();
});
