/**
 * What the SQLite side of the job store port adds to the moves themselves: submissions in
 * one turn share one group commit, the idempotency entry and the queue limit are decided in
 * the submission's transaction, a dispatch round is one transaction that skips claims whose
 * job left the queue, and events are published only once their transaction has committed.
 */
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EVERY_ACCOUNT, type IdempotencyClaim, type NewJob, type StoreEvent } from '../../main/core/jobs.js';
import { openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import { GroupCommit } from '../../main/storage/sqlite/group-commit.js';
import { SqliteJobStore } from '../../main/storage/sqlite/job-store.js';
import { tempDataDir } from '../support/harness.js';
import { newJob as aJob } from '../support/new-job.js';
import { SqliteWebhookOutbox } from '../../main/storage/sqlite/outbox.js';

let dir: string;
let db: Db;
let store: SqliteJobStore;
let events: StoreEvent[];
const T = 1_800_000_000_000;

beforeEach(() => {
  dir = tempDataDir();
  db = openDatabase(dir);
  store = new SqliteJobStore(db, new SqliteWebhookOutbox(db));
  events = [];
  store.onEvent((e) => events.push(e));
});
afterEach(async () => {
  await store.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Jobs at T with a webhook, so that final moves write an outbox row. */
const newJob = (overrides: Partial<NewJob> = {}): NewJob => aJob({ created_at: T, callback_url: 'https://hooks.example/in', ...overrides });

const explicit = (key: string, hash: string): IdempotencyClaim => ({ key, hash, ttlMs: 86_400_000, onOtherHash: 'conflict' });

describe('submit', () => {
  it('shares one group commit among the submissions of one turn; one that fails is rolled back alone', async () => {
    const flush = vi.spyOn(GroupCommit.prototype as unknown as { flush(): void }, 'flush');
    try {
      const taken = newJob();
      await store.submit({ job: taken, queuedLimit: 10 });
      flush.mockClear();
      const results = await Promise.allSettled([
        store.submit({ job: newJob(), queuedLimit: 10 }),
        store.submit({ job: { ...newJob(), id: taken.id }, queuedLimit: 10 }), // the same id: the insert fails
        store.submit({ job: newJob(), queuedLimit: 10 }),
      ]);
      expect(flush).toHaveBeenCalledTimes(1);
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value.kind : 'rejected'))).toEqual(['created', 'rejected', 'created']);
      expect(await store.queuedCount(null)).toBe(3);
      expect(events.map((e) => [e.job.status, e.from])).toEqual([
        ['queued', null],
        ['queued', null],
        ['queued', null],
      ]);
    } finally {
      flush.mockRestore();
    }
  });

  it('publishes a new job only once it is committed: another connection already sees it', async () => {
    const reader = new Database(join(dir, 'chatbridge.db'), { readonly: true });
    try {
      const seen: (string | undefined)[] = [];
      store.onEvent((e) => seen.push(reader.prepare(`SELECT status FROM jobs WHERE id = ?`).pluck().get(e.job.id) as string | undefined));
      const job = newJob();
      await store.submit({ job, queuedLimit: 10 });
      await store.cancel(job.id, T + 1);
      expect(seen).toEqual(['queued', 'cancelled']);
    } finally {
      reader.close();
    }
  });

  it('an explicit Idempotency-Key finds its job, conflicts with another request, and makes a new job once its job is deleted', async () => {
    const first = await store.submit({ job: newJob(), idempotency: explicit('k', 'h1'), queuedLimit: 10 });
    expect(first.kind).toBe('created');
    const id = first.kind === 'created' ? first.job.id : '';
    expect(await store.submit({ job: newJob(), idempotency: explicit('k', 'h1'), queuedLimit: 10 })).toMatchObject({ kind: 'found', job: { id } });
    expect(await store.submit({ job: newJob(), idempotency: explicit('k', 'h2'), queuedLimit: 10 })).toEqual({ kind: 'conflict' });
    expect(await store.queuedCount(null)).toBe(1);

    await store.cancel(id, T + 1);
    await store.delete(id);
    const again = await store.submit({ job: newJob(), idempotency: explicit('k', 'h1'), queuedLimit: 10 });
    expect(again.kind).toBe('created');
    expect(await store.submit({ job: newJob(), idempotency: explicit('k', 'h1'), queuedLimit: 10 })).toMatchObject({
      kind: 'found',
      job: { id: again.kind === 'created' ? again.job.id : '' },
    });
  });

  it('entries older than their window do not count; a replaced entry is refreshed on each find', async () => {
    const repeat = (ttlMs: number, at: number): IdempotencyClaim & { at: number } => ({ key: 'r', hash: 'h', ttlMs, onOtherHash: 'replace', at });
    const submitAt = ({ at, ...claim }: ReturnType<typeof repeat>) => store.submit({ job: newJob({ created_at: at }), idempotency: claim, queuedLimit: 10 });
    const first = await submitAt(repeat(1_000, T));
    // A first try looks nowhere (ttl 0): the same request again is another job.
    expect((await submitAt(repeat(0, T))).kind).toBe('created');
    const found = await submitAt(repeat(1_000, T + 900));
    expect(found.kind).toBe('found');
    expect(found.kind === 'found' && found.job.id).not.toBe(first.kind === 'created' && first.job.id); // the latest recorded
    // Recorded at T, the entry would have lapsed at T + 1 000; found at T + 900, it lasts on.
    expect((await submitAt(repeat(1_000, T + 1_800))).kind).toBe('found');
    // Last found at T + 1 800: by T + 2 900 its window has passed.
    expect((await submitAt(repeat(1_000, T + 2_900))).kind).toBe('created');
  });

  it('counts the queue limit per account inside the transaction, and refuses with nothing written', async () => {
    const results = await Promise.all([1, 2, 3].map(() => store.submit({ job: newJob({ account_id: 'acc_a' }), queuedLimit: 2 })));
    expect(results.map((r) => r.kind)).toEqual(['created', 'created', 'queue_full']);
    expect((await store.submit({ job: newJob({ account_id: 'acc_b' }), queuedLimit: 2 })).kind).toBe('created');
    expect(await store.queuedCount('acc_a')).toBe(2);
    expect(await store.queuedCount(EVERY_ACCOUNT)).toBe(3);

    const kept = await store.submit({ job: newJob(), idempotency: explicit('x', 'h'), queuedLimit: 10 });
    expect(await store.submit({ job: newJob(), idempotency: explicit('x', 'h'), queuedLimit: 10, refuseNew: true })).toMatchObject({
      kind: 'found',
      job: { id: kept.kind === 'created' ? kept.job.id : '' },
    });
    expect(await store.submit({ job: newJob(), idempotency: explicit('y', 'h'), queuedLimit: 10, refuseNew: true })).toEqual({ kind: 'refused' });
    expect(await store.submit({ job: newJob({ account_id: 'acc_a' }), queuedLimit: 2, refuseNew: true })).toEqual({ kind: 'queue_full' });
    expect(await store.queuedCount(EVERY_ACCOUNT)).toBe(4);
    expect(db.prepare(`SELECT COUNT(*) FROM idempotency WHERE key = 'y'`).pluck().get()).toBe(0);
  });
});

describe('dispatch', () => {
  it('claims queued jobs in one transaction, in claim order, skipping those no longer queued', async () => {
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => store.submit({ job: newJob(), queuedLimit: 10 })));
    const ids = [a, b, c].map((r) => (r!.kind === 'created' ? r!.job.id : ''));
    await store.cancel(ids[1]!, T + 1);
    events.length = 0;
    const dispatched = await store.dispatch(
      [
        { jobId: ids[2]!, agentId: 'agt_1', provider: 'chatgpt' },
        { jobId: ids[1]!, agentId: 'agt_2', provider: 'claude' },
        { jobId: ids[0]!, agentId: 'agt_3', provider: 'gemini' },
      ],
      T + 2,
    );
    expect(dispatched.map((j) => [j.id, j.status, j.agent_id, j.attempts, j.queue_ms])).toEqual([
      [ids[2], 'dispatched', 'agt_1', 1, 2],
      [ids[0], 'dispatched', 'agt_3', 1, 2],
    ]);
    expect(events.map((e) => [e.job.id, e.from, e.job.status])).toEqual([
      [ids[2], 'queued', 'dispatched'],
      [ids[0], 'queued', 'dispatched'],
    ]);
    expect((await store.attempts(ids[0]!)).map((x) => [x.attempt, x.agent_id, x.ended_at])).toEqual([[1, 'agt_3', null]]);
    expect(await store.queuedCount(null)).toBe(0);
    // Claimed twice (as by a second round): the second finds it dispatched and skips it.
    expect(await store.dispatch([{ jobId: ids[0]!, agentId: 'agt_1', provider: 'chatgpt' }], T + 3)).toEqual([]);
  });
});

describe('a move whose transaction fails', () => {
  it('publishes nothing, not even the moves made before the failure, and the queue order stays that of the rows', async () => {
    const [a, b] = await Promise.all([
      store.submit({ job: newJob({ deadline_at: T + 10 }), queuedLimit: 10 }),
      store.submit({ job: newJob({ deadline_at: T + 20 }), queuedLimit: 10 }),
    ]);
    const ids = [a, b].map((r) => (r!.kind === 'created' ? r!.job.id : ''));
    // The second job's webhook row cannot be written: the expiry of both is rolled back.
    db.prepare(`INSERT INTO webhook_deliveries (job_id, origin, state, round, round_attempts, next_at, created_at) VALUES (?, 'x', 'pending', 1, 0, 0, 0)`).run(ids[1]);
    events.length = 0;
    await expect(store.expireDue(T + 30)).rejects.toThrow(/UNIQUE/);
    expect(events).toEqual([]);
    expect(await store.queuedCount(null)).toBe(2);
    expect(await store.queuePosition((await store.get(ids[1]!))!)).toBe(2);

    db.prepare(`DELETE FROM webhook_deliveries`).run();
    expect((await store.expireDue(T + 30)).map((m) => m.job.id)).toEqual(ids);
    expect(events.map((e) => [e.job.id, e.from, e.job.status])).toEqual([
      [ids[0], 'queued', 'expired'],
      [ids[1], 'queued', 'expired'],
    ]);
    expect(await store.queuedCount(null)).toBe(0);
  });
});
