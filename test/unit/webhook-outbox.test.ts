/**
 * The SQLite outbox row is written by the very transaction that makes a job final, on every
 * path there is to a final status (its schedule, as every outbox's: test/store/webhook-outbox-contract.ts).
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import type { NewJob } from '../../main/core/jobs.js';
import type { JobStore } from '../../main/queue/job-store.js';
import { SqliteJobStore } from '../../main/storage/sqlite/job-store.js';
import { tempDataDir } from '../support/harness.js';
import { submit } from '../support/store.js';
import { SqliteWebhookOutbox } from '../../main/storage/sqlite/outbox.js';

let dir: string;
let db: Db;
let outbox: SqliteWebhookOutbox;
let store: JobStore;
let enqueued: number;
const T = 1_800_000_000_000;

beforeEach(() => {
  dir = tempDataDir();
  db = openDatabase(dir);
  outbox = new SqliteWebhookOutbox(db);
  store = new SqliteJobStore(db, outbox);
  enqueued = 0;
  outbox.onEnqueue(() => enqueued++);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
async function job(overrides: Partial<NewJob> = {}): Promise<string> {
  const id = `job_${++n}`;
  await submit(store, {
    id,
    prompt: 'p',
    req_provider: null,
    req_agent_id: null,
    conversation_in: null,
    priority: 0,
    timeout_ms: 10_000,
    deadline_at: T + 60_000,
    max_attempts: 3,
    callback_url: 'https://hooks.example:8443/in?x=1',
    metadata: '{}',
    created_at: T,
    api_key_id: 'key_1',
    ...overrides,
  });
  return id;
}

const rows = () => db.prepare(`SELECT COUNT(*) FROM webhook_deliveries`).pluck().get() as number;

describe('every final transition adds the delivery, in its own transaction', () => {
  it('succeeded, failed (refused, or attempts used up, or lost at a restart), cancelled (queued or running), expired', async () => {
    const ids = {
      succeeded: await job(),
      rejected: await job(),
      exhausted: await job({ max_attempts: 1 }),
      lost: await job({ max_attempts: 1 }),
      cancelledQueued: await job(),
      cancelledRunning: await job(),
      expired: await job({ deadline_at: T + 5_000 }),
    };
    for (const id of [ids.succeeded, ids.rejected, ids.exhausted, ids.lost, ids.cancelledRunning]) await store.dispatch([{ jobId: id, agentId: 'agt_1', provider: 'chatgpt' }], T);
    expect(rows()).toBe(0); // dispatching is not final

    await store.endAttempt(ids.succeeded, 1, { outcome: 'succeeded', response: 'r', conversationRef: 'cv_1', conversationAddress: 'a' }, T + 1);
    await store.endAttempt(ids.rejected, 1, { outcome: 'failed', errorCode: 'PROMPT_REJECTED' }, T + 2);
    await store.endAttempt(ids.exhausted, 1, { outcome: 'failed', errorCode: 'PROVIDER_ERROR' }, T + 3);
    await store.requeueDispatched(T + 4); // only `lost` and `cancelledRunning` are still dispatched
    expect((await store.get(ids.lost))!.status).toBe('failed');
    expect((await store.get(ids.cancelledRunning))!.status).toBe('queued'); // put back, not final: no delivery
    expect(await outbox.get(ids.cancelledRunning)).toBeUndefined();
    await store.dispatch([{ jobId: ids.cancelledRunning, agentId: 'agt_1', provider: 'chatgpt' }], T + 4);
    await store.cancel(ids.cancelledRunning, T + 5);
    await store.cancel(ids.cancelledQueued, T + 5);
    await store.expireDue(T + 5_000);

    const finalAt: Record<string, number> = {
      succeeded: T + 1,
      rejected: T + 2,
      exhausted: T + 3,
      lost: T + 4,
      cancelledRunning: T + 5,
      cancelledQueued: T + 5,
      expired: T + 5_000,
    };
    for (const [name, id] of Object.entries(ids)) {
      expect(await outbox.get(id), name).toEqual({
        job_id: id,
        origin: 'https://hooks.example:8443',
        state: 'pending',
        round: 1,
        round_attempts: 0,
        next_at: finalAt[name],
        created_at: finalAt[name],
      });
    }
    expect(rows()).toBe(7);
    expect(enqueued).toBe(7);
    // A second DELETE of a final job changes nothing and adds nothing.
    await store.cancel(ids.succeeded, T + 6);
    expect(rows()).toBe(7);
  });

  it('a job without callback_url, or one that is retried, gets no delivery', async () => {
    const plain = await job({ callback_url: null });
    const retried = await job();
    await store.dispatch([{ jobId: plain, agentId: 'agt_1', provider: 'chatgpt' }], T);
    await store.dispatch([{ jobId: retried, agentId: 'agt_2', provider: 'claude' }], T);
    await store.endAttempt(plain, 1, { outcome: 'succeeded', response: 'r', conversationRef: 'cv_1', conversationAddress: 'a' }, T + 1);
    await store.endAttempt(retried, 1, { outcome: 'failed', errorCode: 'PROVIDER_ERROR' }, T + 1);
    expect((await store.get(retried))!.status).toBe('queued');
    expect(rows()).toBe(0);
  });

  it('rolls back with the transition: a delivery that cannot be written leaves the job as it was', async () => {
    const id = await job();
    const insert = db.prepare(`INSERT INTO webhook_deliveries (job_id, origin, state, round, round_attempts, next_at, created_at) VALUES (?, 'x', 'pending', 1, 0, 0, 0)`);
    insert.run(id); // a conflicting row makes the enqueue inside cancel() fail…
    await expect(store.cancel(id, T + 1)).rejects.toThrow(/UNIQUE/);
    expect((await store.get(id))!.status).toBe('queued'); // …and the job stays as it was
    expect(rows()).toBe(1);
  });
});
