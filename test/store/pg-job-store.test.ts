/** The JobStore contract on PostgreSQL, and what only several instances on one database can show. */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../main/storage/postgres/connect.js';
import { PgJobStore } from '../../main/storage/postgres/job-store.js';
import type { HourlyCaps, JobRow, StoreEvent, SubmitResult } from '../../main/core/jobs.js';
import { HourlyUsage } from '../../main/queue/hourly-usage.js';
import { planAttemptEnd, planDispatch, StaleMove, type JobMove } from '../../main/queue/job-moves.js';
import { applyMove, attemptsOf } from '../../main/storage/postgres/job-moves.js';
import { ManualClock } from '../support/manual-clock.js';
import { until } from '../support/until.js';
import { newJob, T0 } from '../support/new-job.js';
import { startMigratedCluster, type MigratedCluster } from './migrated-cluster.js';
import { jobStoreContract, type StoreUnderTest } from './job-store-contract.js';

let postgres: MigratedCluster;
beforeAll(async () => {
  postgres = await startMigratedCluster();
});
afterAll(() => postgres?.cluster.stop());

/** A migrated database with a pool of its own (for what the test looks at), and its URL. */
async function freshDatabase(): Promise<{ url: string; pool: pg.Pool }> {
  const url = await postgres.newDatabase();
  return { url, pool: await connect(url, { max: 4 }) };
}

/** The contract's database, emptied before each of its tests (much faster than a new one). */
let contractDb: { url: string; pool: pg.Pool } | undefined;
afterAll(() => contractDb?.pool.end());

jobStoreContract('PostgreSQL', async (): Promise<StoreUnderTest> => {
  contractDb ??= await freshDatabase();
  const { url, pool: admin } = contractDb;
  await admin.query(`TRUNCATE jobs, attempts, job_deltas, job_files, conversations, idempotency, accounts, webhook_deliveries, webhook_attempts, devices`);
  const store = new PgJobStore(await connect(url), 'dev_a');
  return {
    store,
    async delivery(jobId) {
      const { rows } = await admin.query(`SELECT origin, state, round, next_at FROM webhook_deliveries WHERE job_id = $1`, [jobId]);
      return rows[0];
    },
    async fileRows(jobId) {
      const { rows } = await admin.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM job_files WHERE job_id = $1`, [jobId]);
      return rows[0]!.n;
    },
    async addDisabledAccount(id, at) {
      await admin.query(`INSERT INTO accounts (id, name, disabled_at, created_at) VALUES ($1, $1, $2, $2)`, [id, at]);
    },
  };
});

describe('PostgreSQL job store: two instances on one database', () => {
  let a: PgJobStore;
  let b: PgJobStore;
  let admin: pg.Pool;
  const bothStores = async () => {
    const fresh = await freshDatabase();
    admin = fresh.pool;
    a = new PgJobStore(await connect(fresh.url), 'dev_a');
    b = new PgJobStore(await connect(fresh.url), 'dev_b');
  };
  afterEach(async () => {
    await Promise.all([a?.close(), b?.close(), admin?.end()]);
  });

  it('gives each job to exactly one of two instances dispatching the same jobs at once', async () => {
    await bothStores();
    const jobs: JobRow[] = [];
    for (let i = 0; i < 60; i++) {
      const r = await a.submit({ job: newJob({ created_at: T0 + i }), queuedLimit: 1000 });
      if (r.kind === 'created') jobs.push(r.job);
    }
    // Each instance claims every job, a few per round, as its scheduler would with free agents.
    const round = async (store: PgJobStore, agent: string, order: JobRow[]) => {
      const won: JobRow[] = [];
      for (let i = 0; i < order.length; i += 4) {
        const claims = order.slice(i, i + 4).map((j) => ({ jobId: j.id, agentId: agent, provider: 'chatgpt' }));
        won.push(...(await store.dispatch(claims, T0 + 100)));
      }
      return won;
    };
    const [wonA, wonB] = await Promise.all([round(a, 'agt_a', jobs), round(b, 'agt_b', [...jobs].reverse())]);
    const idsA = new Set(wonA.map((j) => j.id));
    expect(wonA.length + wonB.length).toBe(60);
    expect(wonB.filter((j) => idsA.has(j.id))).toEqual([]);
    const attempts = await admin.query(`SELECT job_id, COUNT(*)::int AS n, MIN(device_id) AS device FROM attempts GROUP BY job_id`);
    expect(attempts.rows).toHaveLength(60);
    expect(attempts.rows.every((r) => r.n === 1)).toBe(true);
    // The attempt records the instance that claimed it.
    expect(attempts.rows.filter((r) => r.device === 'dev_a').map((r) => r.job_id).sort()).toEqual([...idsA].sort());
    console.log(`concurrent dispatch split: ${wonA.length} on A, ${wonB.length} on B`);
  });

  it('makes one job of 20 concurrent submissions with one Idempotency-Key over two instances', async () => {
    await bothStores();
    const key = { key: 'acct_1 same-key', hash: 'h', ttlMs: 86_400_000, onOtherHash: 'conflict' as const };
    const results: SubmitResult[] = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).submit({ job: newJob({ account_id: 'acct_1', created_at: T0 + i }), idempotency: key, queuedLimit: 1000 })),
    );
    const created = results.filter((r) => r.kind === 'created');
    expect(created).toHaveLength(1);
    const id = (created[0] as { job: JobRow }).job.id;
    expect(results.every((r) => (r.kind === 'created' || r.kind === 'found') && r.job.id === id)).toBe(true);
    expect((await admin.query(`SELECT COUNT(*)::int AS n FROM jobs`)).rows[0].n).toBe(1);
  });

  it("holds an account's queued limit across instances submitting at once", async () => {
    await bothStores();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).submit({ job: newJob({ account_id: 'acct_1', created_at: T0 + i }), queuedLimit: 10 })),
    );
    expect(results.filter((r) => r.kind === 'created')).toHaveLength(10);
    expect(results.filter((r) => r.kind === 'queue_full')).toHaveLength(20);
    expect(await b.queuedCount('acct_1')).toBe(10);
  });

  it("re-queues only its own device's jobs", async () => {
    await bothStores();
    const submitted: JobRow[] = [];
    for (let i = 0; i < 4; i++) submitted.push(((await a.submit({ job: newJob({ created_at: T0 + i }), queuedLimit: 1000 })) as { job: JobRow }).job);
    await a.dispatch(submitted.slice(0, 2).map((j) => ({ jobId: j.id, agentId: 'agt_a', provider: 'chatgpt' })), T0 + 10);
    await b.dispatch(submitted.slice(2).map((j) => ({ jobId: j.id, agentId: 'agt_b', provider: 'claude' })), T0 + 10);
    const moved = await a.requeueDispatched(T0 + 20);
    expect(moved.map((m) => m.job.id).sort()).toEqual(submitted.slice(0, 2).map((j) => j.id).sort());
    for (const job of submitted.slice(2)) expect(await a.get(job.id)).toMatchObject({ status: 'dispatched', agent_id: 'agt_b' });
    expect(await a.queuedCount(null)).toBe(2);
  });

  it("leaves each device the answers its own agents sent, to collect: another's sweep does not resend them", async () => {
    await bothStores();
    const [mine, theirs] = await Promise.all([0, 1].map(async (i) => ((await a.submit({ job: newJob({ created_at: T0 + i }), queuedLimit: 1000 })) as { job: JobRow }).job));
    await a.dispatch([{ jobId: mine!.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 10);
    await b.dispatch([{ jobId: theirs!.id, agentId: 'agt_b', provider: 'claude' }], T0 + 10);
    await a.recordSent(mine!.id, 1, { conversation: 'https://chatgpt.com/c/a', turnsBefore: 0 });
    await b.recordSent(theirs!.id, 1, { conversation: 'https://claude.ai/chat/b', turnsBefore: 1 });
    // Device b never beat: a's sweep finds its attempt lost, yet leaves the job to b's collection.
    expect(await a.requeueLostDevices(T0 + 60_000, 30_000)).toEqual([]);
    expect((await a.sentUncollected()).map((left) => [left.job.id, left.attempt.sent_conversation])).toEqual([[mine!.id, 'https://chatgpt.com/c/a']]);
    expect((await b.sentUncollected()).map((left) => [left.job.id, left.attempt.sent_turns_before])).toEqual([[theirs!.id, 1]]);
  });
});

describe('PostgreSQL job store: hourly caps held across instances', () => {
  let a: PgJobStore;
  let b: PgJobStore;
  let admin: pg.Pool;
  afterEach(async () => {
    await Promise.all([a?.close(), b?.close(), admin?.end()]);
  });
  const bothStores = async () => {
    const fresh = await freshDatabase();
    admin = fresh.pool;
    a = new PgJobStore(await connect(fresh.url), 'dev_a');
    b = new PgJobStore(await connect(fresh.url), 'dev_b');
    const jobs: JobRow[] = [];
    for (let i = 0; i < 40; i++) jobs.push(((await a.submit({ job: newJob({ created_at: T0 + i }), queuedLimit: 1000 })) as { job: JobRow }).job);
    return jobs;
  };
  /** Each instance claims every job, 4 a round, as its scheduler would with 4 free agents under the caps it sees. */
  const claimAll = async (store: PgJobStore, order: JobRow[], agentOf: (i: number) => { agentId: string; provider: string }, caps: HourlyCaps) => {
    const won: JobRow[] = [];
    for (let i = 0; i < order.length; i += 4) {
      const claims = order.slice(i, i + 4).map((j, k) => ({ jobId: j.id, ...agentOf(i + k), caps }));
      won.push(...(await store.dispatch(claims, T0 + 100)));
    }
    return won;
  };
  const started = async () =>
    (await admin.query<{ provider: string; n: number }>(`SELECT provider, COUNT(*)::int AS n FROM attempts GROUP BY provider ORDER BY provider`)).rows;

  it('starts exactly a provider cap of jobs when two instances dispatch at once', async () => {
    const jobs = await bothStores();
    const caps = { agent: null, provider: 7, global: null };
    const [wonA, wonB] = await Promise.all([
      claimAll(a, jobs, (i) => ({ agentId: `agt_a${i % 4}`, provider: 'chatgpt' }), caps),
      claimAll(b, [...jobs].reverse(), (i) => ({ agentId: `agt_b${i % 4}`, provider: 'chatgpt' }), caps),
    ]);
    console.log(`provider cap 7 over two instances: ${wonA.length} on A, ${wonB.length} on B`);
    expect(wonA.length + wonB.length).toBe(7);
    expect(await started()).toEqual([{ provider: 'chatgpt', n: 7 }]);
  });

  it('starts exactly a global cap of jobs, no provider past its cap, when two instances dispatch at once', async () => {
    const jobs = await bothStores();
    const caps = { agent: null, provider: 4, global: 9 };
    // A runs chatgpt agents; B runs qwen and claude in turn.
    const [wonA, wonB] = await Promise.all([
      claimAll(a, jobs, (i) => ({ agentId: `agt_a${i % 4}`, provider: 'chatgpt' }), caps),
      claimAll(b, [...jobs].reverse(), (i) => ({ agentId: `agt_b${i % 4}`, provider: i % 2 ? 'claude' : 'qwen' }), caps),
    ]);
    const byProvider = await started();
    console.log(`global cap 9, provider cap 4 over two instances: ${wonA.length} on A, ${wonB.length} on B (${JSON.stringify(byProvider)})`);
    // Three providers of 4 at most each: the global cap of 9 is what stops them.
    expect(wonA.length + wonB.length).toBe(9);
    expect(byProvider.reduce((sum, p) => sum + p.n, 0)).toBe(9);
    expect(byProvider.every((p) => p.n <= 4)).toBe(true);
  });

  it('takes the caps lock only when a cap is set: a dispatch without caps never waits for it', async () => {
    const jobs = await bothStores();
    const holder = await admin.connect();
    try {
      // Another instance's capped dispatch, in the middle of its count.
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM locks WHERE name = 'caps' FOR UPDATE`);
      expect((await a.dispatch([{ jobId: jobs[0]!.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 1)).length).toBe(1);
      let capped = false;
      const waiting = a.dispatch([{ jobId: jobs[1]!.id, agentId: 'agt_a', provider: 'chatgpt', caps: { agent: 5, provider: null, global: null } }], T0 + 2).then((out) => {
        capped = true;
        return out;
      });
      // It waits for the lock: it is seen waiting on a lock, and has not returned.
      await until(
        async () => (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).rows.length > 0,
        5_000,
        'a capped dispatch waiting',
      );
      expect(capped).toBe(false);
      await holder.query('COMMIT');
      expect((await waiting).length).toBe(1);
    } finally {
      holder.release();
    }
  });

  it("counts every instance's starts once in each one's hourly usage: its own, the others' heard, the past hour read at start", async () => {
    const jobs = await bothStores();
    await a.dispatch([{ jobId: jobs[0]!.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 1);
    await Promise.all([a.listen(), b.listen()]);
    const clock = new ManualClock(T0 + 10);
    const usage = new HourlyUsage(clock);
    await usage.follow(b);
    expect(usage.count('global')).toBe(1);
    const heard = new Promise<void>((resolve) => b.onEvent((e) => e.job.id === jobs[2]!.id && e.from === 'queued' && resolve()));
    await a.dispatch([{ jobId: jobs[1]!.id, agentId: 'agt_a', provider: 'chatgpt' }, { jobId: jobs[2]!.id, agentId: 'agt_a2', provider: 'claude' }], T0 + 20);
    await b.dispatch([{ jobId: jobs[3]!.id, agentId: 'agt_b', provider: 'claude' }], T0 + 30);
    await heard;
    expect([usage.count('global'), usage.count({ agentId: 'agt_a' }), usage.count({ provider: 'claude' })]).toEqual([4, 2, 2]);
    // As the next slot says: the first start leaves an hour after it.
    expect(usage.nextSlotAt('global', 4)).toBe(T0 + 1 + 3_600_000);
  });
});

describe('PostgreSQL job store: moves heard across instances (LISTEN/NOTIFY)', () => {
  let a: PgJobStore;
  let b: PgJobStore;
  let admin: pg.Pool;
  afterEach(async () => {
    await Promise.all([a?.close(), b?.close(), admin?.end()]);
  });

  /** The next `n` events of `store`, in order. */
  const nextEvents = (store: PgJobStore, n: number) =>
    new Promise<StoreEvent[]>((resolve) => {
      const got: StoreEvent[] = [];
      const stop = store.onEvent((e) => {
        got.push(e);
        if (got.length === n) {
          stop();
          resolve(got);
        }
      });
    });

  it("publishes another instance's committed moves, and its own once", async () => {
    const fresh = await freshDatabase();
    admin = fresh.pool;
    a = new PgJobStore(await connect(fresh.url), 'dev_a');
    b = new PgJobStore(await connect(fresh.url), 'dev_b');
    await Promise.all([a.listen(), b.listen()]);
    const own: StoreEvent[] = [];
    a.onEvent((e) => own.push(e));
    const heard = nextEvents(b, 3);
    const job = ((await a.submit({ job: newJob(), queuedLimit: 1000 })) as { job: JobRow }).job;
    await a.dispatch([{ jobId: job.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 1);
    // A refusal writes nothing and is not announced.
    await a.submit({ job: newJob(), queuedLimit: 0 });
    await a.cancel(job.id, T0 + 2);
    const events = await heard;
    expect(events.map((e) => [e.job.id, e.from])).toEqual([
      [job.id, null],
      [job.id, 'queued'],
      [job.id, 'dispatched'],
    ]);
    // Each is the job as it is when re-read: here, already cancelled.
    expect(events.at(-1)!.job).toEqual(await a.get(job.id));
    expect(own.map((e) => e.from)).toEqual([null, 'queued', 'dispatched']);
  });

  it("tells a job's own listeners of another instance's moves, as the re-read row shows them", async () => {
    const fresh = await freshDatabase();
    admin = fresh.pool;
    a = new PgJobStore(await connect(fresh.url), 'dev_a');
    b = new PgJobStore(await connect(fresh.url), 'dev_b');
    await Promise.all([a.listen(), b.listen()]);
    const job = ((await a.submit({ job: newJob(), queuedLimit: 1000 })) as { job: JobRow }).job;
    const seen: JobRow[] = [];
    b.events.subscribe(job.id, (row) => seen.push(row));
    await a.dispatch([{ jobId: job.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 1);
    await a.endAttempt(job.id, 1, { outcome: 'succeeded', response: 'four', conversationRef: 'cv_1', conversationAddress: 'https://chat.example/c/1' }, T0 + 2);
    await until(() => seen.some((row) => row.status === 'succeeded'));
    // Every row told is one read from the database; the last is the job as it ended.
    expect(seen.at(-1)).toEqual(await a.get(job.id));
    expect(seen.at(-1)!.response).toBe('four');
  });

  it("hands on another instance's pieces of an answer as read back from the table", async () => {
    const fresh = await freshDatabase();
    admin = fresh.pool;
    a = new PgJobStore(await connect(fresh.url), 'dev_a');
    b = new PgJobStore(await connect(fresh.url), 'dev_b');
    await Promise.all([a.listen(), b.listen()]);
    const job = ((await a.submit({ job: newJob(), queuedLimit: 1000 })) as { job: JobRow }).job;
    await a.dispatch([{ jobId: job.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 1);
    const heard: string[] = [];
    b.events.onDelta(job.id, (d) => heard.push(`${d.seq}:${d.text}`));
    const own: string[] = [];
    a.events.onDelta(job.id, (d) => own.push(d.text));
    await a.appendDelta(job.id, 1, 'Hello');
    await a.appendDelta(job.id, 1, ', world');
    await until(() => heard.length === 2);
    expect(heard.sort()).toEqual(['1:Hello', '2:, world']);
    expect(own).toEqual(['Hello', ', world']);
    // A notice naming a piece the table does not hold hands nothing on.
    await admin.query(`SELECT pg_notify('chatbridge_deltas', $1)`, [JSON.stringify(['dev_x', job.id, 9])]);
    await a.appendDelta(job.id, 1, '!');
    await until(() => heard.length === 3);
    expect(heard.at(-1)).toBe('3:!');
  });

  it('listens again after its listening connection is lost', async () => {
    const fresh = await freshDatabase();
    admin = fresh.pool;
    a = new PgJobStore(await connect(fresh.url), 'dev_a');
    b = new PgJobStore(await connect(fresh.url), 'dev_b');
    await b.listen();
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN chatbridge_jobs'`);
    const heard = nextEvents(b, 1);
    // Submissions until one is heard: the first ones may land before b listens again.
    const submitting = (async () => {
      for (let i = 0; i < 100; i++) {
        await a.submit({ job: newJob(), queuedLimit: 1000 });
        if (await Promise.race([heard.then(() => true), new Promise((r) => setTimeout(() => r(false), 100))])) return i;
      }
      return -1;
    })();
    expect(await submitting).toBeGreaterThanOrEqual(0);
    expect((await heard)[0]!.from).toBeNull();
  });
});

describe('PostgreSQL job store: a plan is written only where its rows are as it found them', () => {
  let store: PgJobStore;
  let admin: pg.Pool;
  afterEach(async () => {
    await Promise.all([store?.close(), admin?.end()]);
  });

  /** Applies `move` in a transaction of its own, which the error of a guard rolls back. */
  const applyAlone = async (move: JobMove) => {
    const c = await admin.connect();
    try {
      await c.query('BEGIN');
      await applyMove(c, move, 'dev_a');
      await c.query('COMMIT');
    } catch (error) {
      await c.query('ROLLBACK');
      throw error;
    } finally {
      c.release();
    }
  };

  it('refuses a move planned from a status the job has left, and the end of an attempt closed since', async () => {
    const fresh = await freshDatabase();
    admin = fresh.pool;
    store = new PgJobStore(await connect(fresh.url), 'dev_a');
    const job = ((await store.submit({ job: newJob({ callback_url: 'https://hooks.example/x' }), queuedLimit: 1000 })) as { job: JobRow }).job;
    const claim = { jobId: job.id, agentId: 'agt_a', provider: 'chatgpt' };
    const stale = planDispatch(job, claim, T0 + 1);
    const [running] = await store.dispatch([claim], T0 + 1);
    await expect(applyAlone(stale)).rejects.toThrow(StaleMove);

    const answer = planAttemptEnd(running!, await attemptsOf(admin, job.id), 1, { outcome: 'succeeded', response: '4', conversationRef: 'cv_1', conversationAddress: 'https://c.example/1' }, T0 + 2);
    await admin.query(`UPDATE attempts SET ended_at = $2, outcome = 'agent_lost', error_code = 'AGENT_LOST' WHERE job_id = $1`, [job.id, T0 + 2]);
    await expect(applyAlone(answer!)).rejects.toThrow(StaleMove);
    // Nothing of either plan stayed: one attempt, the job still running, no conversation, no delivery.
    expect(await store.get(job.id)).toEqual(running);
    expect(await store.attempts(job.id)).toHaveLength(1);
    expect((await admin.query(`SELECT (SELECT COUNT(*) FROM conversations) + (SELECT COUNT(*) FROM webhook_deliveries) AS n`)).rows[0].n).toBe(0);
  });
});
