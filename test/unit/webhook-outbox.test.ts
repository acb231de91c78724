/**
 * The outbox row is written by the very transaction that makes a job final, on every path
 * there is to a final status, and its schedule moves as attempts are recorded.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/queue/db.js';
import type { NewJob } from '../../main/core/jobs.js';
import type { JobStore } from '../../main/queue/job-store.js';
import { SqliteJobStore } from '../../main/queue/sqlite/job-store.js';
import { WebhookOutbox } from '../../main/webhooks/outbox.js';
import { tempDataDir } from '../support/harness.js';
import { submit } from '../support/store.js';

let dir: string;
let db: Db;
let outbox: WebhookOutbox;
let store: JobStore;
let enqueued: number;
const T = 1_800_000_000_000;

beforeEach(() => {
  dir = tempDataDir();
  db = openDatabase(dir);
  outbox = new WebhookOutbox(db);
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
    expect(outbox.get(ids.cancelledRunning)).toBeUndefined();
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
      expect(outbox.get(id), name).toEqual({
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

describe('the schedule in the outbox', () => {
  async function finalJob(): Promise<string> {
    const id = await job();
    await store.cancel(id, T);
    return id;
  }
  const result = (jobId: string, round: number, startedAt: number, statusCode: number | null, error: string | null = null) => ({
    jobId,
    round,
    startedAt,
    durationMs: 10,
    statusCode,
    error,
  });

  it('failures move next_at by 30 s, 5 min, 30 min, 2 h from the end of each attempt, then give up', async () => {
    const id = await finalJob();
    const expected = [T + 10 + 30_000, T + 10 + 300_000, T + 10 + 1_800_000, T + 10 + 7_200_000, null];
    for (const [i, next] of expected.entries()) {
      await outbox.record(result(id, 1, T, i % 2 ? 500 : null, i % 2 ? null : 'connect ECONNREFUSED'));
      expect(outbox.get(id), `after attempt ${i + 1}`).toMatchObject({ round_attempts: i + 1, next_at: next, state: next === null ? 'failed' : 'pending' });
    }
    expect(outbox.attempts(id).map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
  });

  it('a 2xx delivers; a 3xx does not', async () => {
    const a = await finalJob();
    const b = await finalJob();
    await outbox.record(result(a, 1, T, 299));
    await outbox.record(result(b, 1, T, 304));
    expect(outbox.get(a)).toMatchObject({ state: 'delivered', next_at: null });
    expect(outbox.get(b)).toMatchObject({ state: 'pending', next_at: T + 10 + 30_000 });
  });

  it('redelivery starts a new round at once; a late result of the old round is logged but moves nothing', async () => {
    const id = await finalJob();
    await outbox.record(result(id, 1, T, 500));
    outbox.redeliver(id, T + 100);
    await outbox.record(result(id, 1, T + 50, 500)); // was in flight when the redelivery came
    expect(outbox.get(id)).toMatchObject({ state: 'pending', round: 2, round_attempts: 0, next_at: T + 100 });
    await outbox.record(result(id, 2, T + 100, 204));
    expect(outbox.get(id)).toMatchObject({ state: 'delivered', round: 2, round_attempts: 1 });
    expect(outbox.attempts(id).map((x) => [x.attempt, x.round, x.status_code])).toEqual([
      [1, 1, 500],
      [2, 1, 500],
      [3, 2, 204],
    ]);
  });

  it('dueFor: per origin, oldest due first, leaving out busy jobs; pendingOrigins; nextDueAfter', async () => {
    const ids = [await job({ callback_url: 'https://a.test/x' }), await job({ callback_url: 'https://b.test:8443/x' }), await job({ callback_url: 'https://a.test/y' })];
    for (const [i, id] of ids.entries()) await store.cancel(id, T + i);
    expect(outbox.pendingOrigins()).toEqual(['https://a.test', 'https://b.test:8443']);
    expect(outbox.dueFor('https://a.test', T + 10, [], 10).map((d) => d.job_id)).toEqual([ids[0], ids[2]]);
    expect(outbox.dueFor('https://a.test', T + 1, [], 10).map((d) => d.job_id)).toEqual([ids[0]]);
    expect(outbox.dueFor('https://a.test', T + 10, [ids[0]!], 10).map((d) => d.job_id)).toEqual([ids[2]]);
    expect(outbox.dueFor('https://a.test', T + 10, [], 1)).toEqual([{ job_id: ids[0], origin: 'https://a.test', round: 1 }]);
    await outbox.record(result(ids[1]!, 1, T + 20, 503));
    expect(outbox.nextDueAfter(T + 20)).toBe(T + 30 + 30_000);
    await outbox.record(result(ids[1]!, 1, T + 20, 200));
    expect(outbox.pendingOrigins()).toEqual(['https://a.test']); // nothing pending for b any more
  });
});
