/**
 * The store's deleting, purging and pruning (the outbox's clearing of old logs is in
 * test/store/webhook-outbox-contract.ts), and the database giving freed space back (incremental vacuum, turned on for older databases).
 */
import Database from 'better-sqlite3';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import type { NewJob } from '../../main/core/jobs.js';
import type { JobStore } from '../../main/queue/job-store.js';
import { SqliteJobStore } from '../../main/storage/sqlite/job-store.js';
import { tempDataDir } from '../support/harness.js';
import { submit } from '../support/store.js';
import { SqliteWebhookOutbox } from '../../main/storage/sqlite/outbox.js';
import { reclaimInSteps } from '../../main/storage/sqlite/reclaim.js';
import { DAY_MS } from '../../main/core/timestamps.js';

let dir: string;
let db: Db;
let outbox: SqliteWebhookOutbox;
let store: JobStore;
const T = 1_800_000_000_000;

beforeEach(() => {
  dir = tempDataDir();
  db = openDatabase(dir);
  outbox = new SqliteWebhookOutbox(db);
  store = new SqliteJobStore(db, outbox);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
async function job(overrides: Partial<NewJob> = {}): Promise<string> {
  const id = `job_${String(++n).padStart(6, '0')}`;
  await submit(store, {
    id,
    prompt: `prompt ${n}`,
    req_provider: null,
    req_agent_id: null,
    conversation_in: null,
    priority: 0,
    timeout_ms: 10_000,
    deadline_at: T + DAY_MS,
    max_attempts: 3,
    callback_url: 'https://hooks.example/in',
    metadata: '{"ticket":1}',
    created_at: T,
    api_key_id: 'key_1',
    ...overrides,
  });
  return id;
}

/** A job that ran on agt_1 and succeeded at `at`, with a conversation. */
async function succeeded(at: number, overrides: Partial<NewJob> = {}): Promise<string> {
  const id = await await job(overrides);
  await store.dispatch([{ jobId: id, agentId: 'agt_1', provider: 'chatgpt' }], at - 2_000);
  await store.endAttempt(id, 1, { outcome: 'succeeded', response: `answer to ${id}`, conversationRef: `cv_${id}`, conversationAddress: 'https://chat/1' }, at);
  return id;
}

const count = (sql: string, ...args: unknown[]) => db.prepare(sql).pluck().get(...args) as number;

describe('delete', () => {
  it('refuses a queued or running job, with its status; deletes a finished one with its attempts and webhook log', async () => {
    const queued = await job();
    const running = await job();
    await store.dispatch([{ jobId: running, agentId: 'agt_1', provider: 'chatgpt' }], T);
    expect(await store.delete(queued)).toEqual({ deleted: false, status: 'queued' });
    expect(await store.delete(running)).toEqual({ deleted: false, status: 'dispatched' });
    expect((await store.get(queued))!.status).toBe('queued');
    expect(await store.queuePosition((await store.get(queued))!)).toBe(1);

    const done = await succeeded(T + 5_000);
    await outbox.record({ jobId: done, round: 1, startedAt: T + 5_000, durationMs: 10, statusCode: 500, error: null });
    expect(count(`SELECT COUNT(*) FROM webhook_attempts WHERE job_id = ?`, done)).toBe(1);
    expect(await store.delete(done)).toEqual({ deleted: true });
    expect(await store.get(done)).toBeUndefined();
    expect(await store.attempts(done)).toEqual([]);
    expect(await outbox.get(done)).toBeUndefined();
    expect(count(`SELECT COUNT(*) FROM webhook_attempts WHERE job_id = ?`, done)).toBe(0);
    // The conversation stays: other jobs may continue it.
    expect(await store.conversation(`cv_${done}`)).toBeDefined();
    expect(await store.delete(done)).toBeUndefined();
  });
});

describe('purge', () => {
  it('deletes finished jobs before the date in batches, oldest first, and never a live one however old', async () => {
    const old = [await succeeded(T + 1_000), await succeeded(T + 2_000), await succeeded(T + 3_000)];
    const cancelled = await job();
    await store.cancel(cancelled, T + 4_000);
    const oldQueued = await job({ created_at: T - DAY_MS });
    const oldRunning = await job({ created_at: T - DAY_MS });
    await store.dispatch([{ jobId: oldRunning, agentId: 'agt_2', provider: 'claude' }], T);
    const recent = await succeeded(T + 10_000);

    expect(await store.purgeFinishedBefore(T + 5_000, 2)).toBe(2);
    expect(await Promise.all(old.map(async (id) => (await store.get(id)) === undefined))).toEqual([true, true, false]);
    expect(await store.purgeFinishedBefore(T + 5_000, 2)).toBe(2);
    expect(await store.purgeFinishedBefore(T + 5_000, 2)).toBe(0);
    expect(await store.get(cancelled)).toBeUndefined();
    expect(await Promise.all([oldQueued, oldRunning, recent].map(async (id) => (await store.get(id))?.status))).toEqual(['queued', 'dispatched', 'succeeded']);
    expect(count(`SELECT COUNT(*) FROM attempts`)).toBe(2); // oldRunning's and recent's
    expect(count(`SELECT COUNT(*) FROM webhook_deliveries`)).toBe(1); // recent's
  });
});

describe('pruneContent', () => {
  it('removes prompt and response of jobs finished before the cut, keeping everything else', async () => {
    const old = await succeeded(T + 1_000);
    const failed = await job();
    await store.dispatch([{ jobId: failed, agentId: 'agt_1', provider: 'chatgpt' }], T);
    await store.endAttempt(failed, 1, { outcome: 'failed', errorCode: 'PROMPT_REJECTED' }, T + 2_000);
    const live = await job({ created_at: T - DAY_MS });
    const recent = await succeeded(T + 10_000);
    const before = (await store.get(old))!;

    expect(await store.pruneContent(T + 5_000, T + 9_000, 1)).toBe(1);
    expect(await store.pruneContent(T + 5_000, T + 9_000, 10)).toBe(1);
    expect(await store.pruneContent(T + 5_000, T + 9_000, 10)).toBe(0); // already pruned ones are not counted again

    const pruned = (await store.get(old))!;
    expect(pruned).toEqual({ ...before, prompt: '', response: null, content_pruned_at: T + 9_000 });
    expect(await store.get(failed)).toMatchObject({ prompt: '', response: null, error_code: 'PROMPT_REJECTED', content_pruned_at: T + 9_000 });
    expect(await store.attempts(old)).toHaveLength(1);
    expect(await store.conversation(pruned.conversation_ref!)).toBeDefined();
    expect(await store.get(live)).toMatchObject({ prompt: expect.stringMatching(/^prompt/), content_pruned_at: null });
    expect(await store.get(recent)).toMatchObject({ response: `answer to ${recent}`, content_pruned_at: null });
  });
});

describe('space', () => {
  it('a new database reclaims freed pages: the file shrinks after a purge', async () => {
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    const big = 'x'.repeat(20_000);
    // Submitted together, they share one commit.
    const ids = await Promise.all(Array.from({ length: 300 }, () => job({ prompt: big })));
    for (const id of ids) await store.cancel(id, T);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const file = join(dir, 'chatbridge.db');
    const full = statSync(file).size;
    while (await store.purgeFinishedBefore(T + 1, 100) > 0);
    expect(db.pragma('freelist_count', { simple: true })).toBeGreaterThan(1_000);
    const steps: number[] = [];
    const reclaimed = await reclaimInSteps(db, 256, async () => {
      steps.push(db.pragma('freelist_count', { simple: true }) as number);
    });
    expect(reclaimed).toBeGreaterThan(1_000);
    expect(steps.length).toBeGreaterThan(3); // in small steps, not one long write
    expect(db.pragma('freelist_count', { simple: true })).toBe(0);
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(statSync(file).size).toBeLessThan(full / 10);
  });

  it('a database from before this version is migrated: new columns, indexes, and incremental vacuum by one VACUUM', async () => {
    const id = await succeeded(T);
    db.close();
    // Back to schema 3 as it was installed: no retention columns or indexes (nor the later accounts, nor
    // the agents' pause, proxy and rest, nor the accounts' signing secrets and deliveries by account, nor
    // the jobs' variant and model, nor the attempts' sent prompt, nor the answers' pieces, nor the jobs' files), auto_vacuum off.
    const raw = new Database(join(dir, 'chatbridge.db'));
    raw.exec(`DROP TABLE job_files; ALTER TABLE jobs DROP COLUMN attachments;`);
    raw.exec(`DROP TABLE job_deltas;`);
    raw.exec(`ALTER TABLE attempts DROP COLUMN sent_conversation; ALTER TABLE attempts DROP COLUMN sent_turns_before;`);
    raw.exec(`ALTER TABLE jobs DROP COLUMN variant; ALTER TABLE jobs DROP COLUMN model_used;`);
    raw.exec(`DROP TABLE webhook_account_secrets; DROP INDEX webhook_deliveries_lane; ALTER TABLE webhook_deliveries DROP COLUMN account_id;
      CREATE INDEX webhook_deliveries_origin ON webhook_deliveries (origin, next_at) WHERE state = 'pending';`);
    raw.exec(`ALTER TABLE agents DROP COLUMN pause_ms; ALTER TABLE agents DROP COLUMN proxy; ALTER TABLE agents DROP COLUMN rest_until;`);
    raw.exec(`DROP TABLE accounts; ALTER TABLE api_keys DROP COLUMN account_id; ALTER TABLE jobs DROP COLUMN account_id;
      ALTER TABLE conversations DROP COLUMN account_id;`);
    raw.exec(`DROP INDEX jobs_unpruned; DROP INDEX jobs_finished; DROP INDEX webhook_deliveries_created;
      ALTER TABLE jobs DROP COLUMN content_pruned_at; ALTER TABLE jobs DROP COLUMN api_key_id;`);
    raw.pragma('user_version = 3');
    raw.pragma('auto_vacuum = NONE');
    raw.exec('VACUUM');
    expect(raw.pragma('auto_vacuum', { simple: true })).toBe(0);
    raw.close();

    db = openDatabase(dir);
    store = new SqliteJobStore(db, (outbox = new SqliteWebhookOutbox(db)));
    expect(db.pragma('user_version', { simple: true })).toBe(13);
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    expect(await store.get(id)).toMatchObject({ status: 'succeeded', response: `answer to ${id}`, api_key_id: null, content_pruned_at: null, variant: null, model_used: null, attachments: [] });
    expect(await store.pruneContent(T + 1, T + 2, 10)).toBe(1);
  });
});
