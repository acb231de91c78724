/** The JobStore contract on PostgreSQL, and what only several instances on one database can show. */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../main/queue/postgres/connect.js';
import { PgJobStore } from '../../main/queue/postgres/job-store.js';
import { migrate } from '../../main/queue/postgres/schema.js';
import type { JobRow, SubmitResult } from '../../main/queue/postgres/port-shim.js';
import { startPostgres, type PgCluster } from '../support/postgres.js';
import { jobStoreContract, newJob, T0, type StoreUnderTest } from './job-store-contract.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
  console.log(`test PostgreSQL cluster started in ${cluster.startMs} ms`);
});
afterAll(() => cluster?.stop());

/** A migrated database on a fresh pool, with its URL. */
async function freshDatabase(): Promise<{ url: string; pool: pg.Pool }> {
  const url = await cluster.createDatabase();
  const pool = await connect(url, { max: 4 });
  await migrate(pool);
  return { url, pool };
}

jobStoreContract('PostgreSQL', async (): Promise<StoreUnderTest> => {
  const { url, pool: admin } = await freshDatabase();
  const store = new PgJobStore(await connect(url), 'dev_a');
  return {
    store,
    async delivery(jobId) {
      const { rows } = await admin.query(`SELECT origin, state, round, next_at FROM webhook_deliveries WHERE job_id = $1`, [jobId]);
      return rows[0];
    },
    async addDisabledAccount(id, at) {
      await admin.query(`INSERT INTO accounts (id, name, disabled_at, created_at) VALUES ($1, $1, $2, $2)`, [id, at]);
    },
    close: () => admin.end(),
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
});
