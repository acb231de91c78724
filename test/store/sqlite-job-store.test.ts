/** The JobStore contract on SQLite: the desktop's store, in a data dir of its own per test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteJobStore } from '../../main/storage/sqlite/job-store.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import { jobStoreContract, type StoreUnderTest } from './job-store-contract.js';
import { SqliteWebhookOutbox } from '../../main/storage/sqlite/outbox.js';
import { newJob, T0 } from '../support/new-job.js';
import { randomBytes } from 'node:crypto';
import { STORED_CHUNK_BYTES } from '../../main/core/attachments.js';
import { randomIds } from '../../main/core/ids.js';
import { serveSqliteStorage } from '../../main/storage/sqlite/sqlite-storage.js';
import { ManualClock } from '../support/manual-clock.js';
import { newAttachment as attachment } from '../support/new-attachment.js';

jobStoreContract('SQLite', async (): Promise<StoreUnderTest> => {
  const dir = mkdtempSync(join(tmpdir(), 'chatbridge-store-'));
  const db = openDatabase(dir);
  const outbox = new SqliteWebhookOutbox(db);
  return {
    store: new SqliteJobStore(db, outbox),
    async delivery(jobId) {
      return outbox.get(jobId);
    },
    async fileRows(jobId) {
      return db.prepare(`SELECT COUNT(*) FROM job_files WHERE job_id = ?`).pluck().get(jobId) as number;
    },
    async addDisabledAccount(id, at) {
      db.prepare(`INSERT INTO accounts (id, name, disabled_at, created_at) VALUES (?, ?, ?, ?)`).run(id, id, at, at);
    },
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

/**
 * The serving process keeps its live jobs in memory (live-jobs.ts): what a poll reads must
 * still be what the database holds, whatever else writes to it.
 */
describe('SQLite job store: the live jobs a poll reads', () => {
  let dir: string;
  let db: Db;
  let store: SqliteJobStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chatbridge-store-'));
    db = openDatabase(dir);
    store = new SqliteJobStore(db, new SqliteWebhookOutbox(db));
  });
  afterEach(async () => {
    await store.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const submitted = async (at = T0) => {
    const result = await store.submit({ job: newJob({ created_at: at }), queuedLimit: 1000 });
    if (result.kind !== 'created') throw new Error(result.kind);
    return result.job;
  };

  it('a final job deleted by a command (another connection) is gone from the next view', async () => {
    const job = await submitted();
    await store.dispatch([{ jobId: job.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 1);
    expect((await store.view(job.id))!.status).toBe('dispatched');
    await store.endAttempt(job.id, 1, { outcome: 'succeeded', response: 'r', conversationRef: 'cv_1', conversationAddress: 'https://x/c/1' }, T0 + 2);
    expect((await store.view(job.id))!.status).toBe('succeeded');
    // `chatbridge jobs delete` in its own process: a connection of its own.
    const command = openDatabase(dir);
    const other = new SqliteJobStore(command, new SqliteWebhookOutbox(command));
    expect(await other.delete(job.id)).toEqual({ deleted: true });
    await other.close();
    command.close();
    expect(await store.view(job.id)).toBeUndefined();
  });

  it('a command beside the server reads its live jobs as they stand, each time', async () => {
    const job = await submitted();
    const command = openDatabase(dir);
    const other = new SqliteJobStore(command, new SqliteWebhookOutbox(command));
    try {
      expect((await other.view(job.id))!.status).toBe('queued');
      await store.dispatch([{ jobId: job.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 1);
      expect((await other.view(job.id))!.status).toBe('dispatched');
    } finally {
      await other.close();
      command.close();
    }
  });

  it('an answer piece is committed without an fsync of its own, and every other commit still waits for one', async () => {
    const job = await submitted();
    await store.dispatch([{ jobId: job.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 1);
    const FULL = 2;
    const modes: string[] = [];
    const pragma = db.pragma.bind(db);
    vi.spyOn(db, 'pragma').mockImplementation(((source: string, options?: object) => {
      if (source.startsWith('synchronous =')) modes.push(source);
      return pragma(source, options as never);
    }) as typeof db.pragma);
    expect(await store.appendDelta(job.id, 1, 'Hello')).toMatchObject({ seq: 1, text: 'Hello' });
    expect(modes).toEqual(['synchronous = NORMAL', 'synchronous = FULL']);
    expect(db.pragma('synchronous', { simple: true })).toBe(FULL);
    // A piece refused (the attempt is not the open one) leaves the mode as it was too.
    expect(await store.appendDelta(job.id, 2, 'late')).toBeNull();
    expect(db.pragma('synchronous', { simple: true })).toBe(FULL);
  });

  it('a move rolled back leaves no view ahead of the database', async () => {
    const first = await submitted(T0);
    const second = await submitted(T0 + 1);
    expect((await store.view(first.id))!.status).toBe('queued');
    // The second start fails once the first was applied: the transaction takes both back.
    db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON attempts WHEN NEW.job_id = '${second.id}' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    const claims = [first, second].map((j) => ({ jobId: j.id, agentId: 'agt_a', provider: 'chatgpt' }));
    await expect(store.dispatch(claims, T0 + 5)).rejects.toThrow('refused');
    expect(await store.view(first.id)).toMatchObject({ status: 'queued', attempts: 0, agent_id: null });
    expect(await store.view(second.id)).toMatchObject({ status: 'queued', attempts: 0 });
    db.exec('DROP TRIGGER refuse');
    await store.dispatch(claims.slice(0, 1), T0 + 6);
    expect((await store.view(first.id))!.status).toBe('dispatched');
  });
});

/**
 * A submission's files are written a chunk a turn before its job (SqliteJobStore.stageFiles):
 * the service goes on between two, and what a submission that ended in no job wrote goes.
 */
describe("SQLite job store: a submission's files", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chatbridge-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a small submission beside a big one is stored first: the big one does not hold the service for its files', async () => {
    const db = openDatabase(dir);
    const store = new SqliteJobStore(db, new SqliteWebhookOutbox(db));
    try {
      const order: string[] = [];
      const big = store.submit({ job: newJob(), queuedLimit: 1000, attachments: [attachment('big.bin', randomBytes(6 * STORED_CHUNK_BYTES))] });
      const small = store.submit({ job: newJob(), queuedLimit: 1000 });
      await Promise.all([big.then(() => order.push('big')), small.then(() => order.push('small'))]);
      expect(order).toEqual(['small', 'big']);
    } finally {
      await store.close();
      db.close();
    }
  });

  it('files left without their job by a crash are removed when the service opens the data dir', async () => {
    const db = openDatabase(dir);
    const store = new SqliteJobStore(db, new SqliteWebhookOutbox(db));
    const kept = await store.submit({ job: newJob(), queuedLimit: 1000, attachments: [attachment('kept.txt', Buffer.from('kept'))] });
    // What a crash between the files' chunks and their job's commit leaves.
    db.prepare(`INSERT INTO job_files (job_id, position, chunk, data) VALUES ('job_never', 0, 0, ?)`).run(Buffer.from('orphan'));
    await store.close();
    db.close();
    const storage = serveSqliteStorage({ dataDir: dir, clock: new ManualClock(T0), ids: randomIds, deviceId: 'local', profile: 'personal', onError: () => {} });
    try {
      const count = (id: string) => storage.jobs.fileChunks(id, 0)[Symbol.asyncIterator]().next();
      expect((await count('job_never')).done).toBe(true);
      expect((await count(kept.kind === 'created' ? kept.job.id : '')).value.toString()).toBe('kept');
    } finally {
      await storage.close();
    }
  });
});
