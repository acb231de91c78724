/**
 * The shared database as other roles and a flaky network see it (issue 19, "a NOTIFY from any
 * database role"): notices anyone may send are hints, never facts and never a crash; moves
 * announced while the listener was down are caught up; every shared table is read again on a
 * timer; a lock someone else holds fails a request in seconds instead of hanging it.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { connect } from '../../main/storage/postgres/connect.js';
import { LIMITS } from '../../main/core/limits.js';
import { PgJobStore } from '../../main/storage/postgres/job-store.js';
import { TableChanges } from '../../main/storage/postgres/table-changes.js';
import { HourlyUsage } from '../../main/queue/hourly-usage.js';
import { toApiError } from '../../main/api/error-handling.js';
import type { JobRow, StoreEvent } from '../../main/core/jobs.js';
import { ManualClock } from '../support/manual-clock.js';
import { newJob, T0 } from '../support/new-job.js';
import { until } from '../support/until.js';
import { startMigratedCluster, type MigratedCluster } from './migrated-cluster.js';

let postgres: MigratedCluster;
beforeAll(async () => {
  postgres = await startMigratedCluster();
});
afterAll(() => postgres?.cluster.stop());

const closing: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  vi.restoreAllMocks();
});

async function store(url: string, device: string): Promise<PgJobStore> {
  const s = new PgJobStore(await connect(url, { max: 4 }), device);
  closing.push(() => s.close());
  return s;
}

async function pool(url: string): Promise<pg.Pool> {
  const p = await connect(url, { max: 3 });
  closing.push(() => p.end());
  return p;
}

/** A role with no rights on our tables, connected to our database, as another tenant of the cluster would be. */
async function stranger(url: string): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DO $$ BEGIN CREATE ROLE stranger LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
  await admin.end();
  const as = new URL(url);
  as.username = 'stranger';
  const client = new pg.Client({ connectionString: as.toString() });
  await client.connect();
  closing.push(() => client.end());
  return client;
}

describe('job notices from anyone', () => {
  it('ignores malformed and forged notices (logging the first once), trusts no start time, and keeps hearing real moves', async () => {
    const url = await postgres.newDatabase();
    const [a, b] = [await store(url, 'dev_a'), await store(url, 'dev_b')];
    const warnings: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (warnings.push(String(chunk)), true));
    await b.listen();
    const usage = new HourlyUsage(new ManualClock(T0 + 10));
    await usage.follow(b);
    const heard: StoreEvent[] = [];
    b.onEvent((e) => heard.push(e));

    const job = ((await a.submit({ job: newJob(), queuedLimit: 1000 })) as { job: JobRow }).job;
    await until(() => heard.length === 1, 5_000, 'the submission heard');
    const tenYears = T0 + 10 * 365 * 86_400_000;
    const forged = [
      'not json',
      '',
      '{}',
      '[1, 2, 3]',
      JSON.stringify(['dev_x', job.id, 'running']),
      // As an earlier ChatBridge announced a start: in full, its time taken on trust.
      JSON.stringify(['dev_x', job.id, 'queued', { job_id: job.id, attempt: 1, agent_id: 'agt_x', provider: 'chatgpt', started_at: tenYears }]),
    ];
    const intruder = await stranger(url);
    for (const payload of forged) await intruder.query(`SELECT pg_notify('chatbridge_jobs', $1)`, [payload]);
    // Well formed, but naming an attempt that does not exist: the job is re-read, no start counted.
    await intruder.query(`SELECT pg_notify('chatbridge_jobs', $1)`, [JSON.stringify(['dev_x', job.id, 'queued', 7])]);
    await until(() => heard.length === 2, 5_000, 'the well-formed forged notice');
    expect(heard[1]).toEqual({ job, from: 'queued' });

    // A real dispatch after all that is heard, its start read from the attempts table.
    await a.dispatch([{ jobId: job.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 5);
    await until(() => heard.length === 3, 5_000, 'the dispatch heard');
    expect(heard[2]!.start).toEqual({ job_id: job.id, attempt: 1, agent_id: 'agt_a', provider: 'chatgpt', started_at: T0 + 5 });
    expect(usage.count('global')).toBe(1);
    const said = warnings.filter((w) => w.includes('chatbridge_jobs'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^Ignored a notice on chatbridge_jobs that is not one of ours \(.*\): "not json"\./);
  });

  it('catches up, once it listens again, on the moves announced while its connection was lost', async () => {
    const url = await postgres.newDatabase();
    const [a, b, admin] = [await store(url, 'dev_a'), await store(url, 'dev_b'), await pool(url)];
    await b.listen();
    const usage = new HourlyUsage(new ManualClock(Date.now()));
    await usage.follow(b);
    const heard: StoreEvent[] = [];
    b.onEvent((e) => heard.push(e));
    const submit = async () => ((await a.submit({ job: newJob({ created_at: Date.now() }), queuedLimit: 1000 })) as { job: JobRow }).job;
    const done = await submit();
    await until(() => heard.length === 1, 5_000, 'the first submission heard');

    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN chatbridge_jobs'`);
    await until(async () => (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN chatbridge_jobs'`)).rowCount === 0, 5_000, 'the listener gone');
    // While nobody listens: one job finished, one dispatched, one submitted.
    const [running, fresh] = [await submit(), await submit()];
    await a.dispatch([{ jobId: done.id, agentId: 'agt_a', provider: 'chatgpt' }, { jobId: running.id, agentId: 'agt_b', provider: 'claude' }], Date.now());
    await a.cancel(done.id, Date.now());
    heard.length = 0;
    expect(fresh.status).toBe('queued');

    await until(() => heard.some((e) => e.job.id === done.id && e.job.status === 'cancelled'), 10_000, 'the catch-up');
    const last = (id: string) => heard.filter((e) => e.job.id === id).at(-1)!;
    expect(last(done.id)).toMatchObject({ from: 'dispatched', job: { status: 'cancelled' } });
    expect(last(running.id)).toMatchObject({ from: 'queued', job: { status: 'dispatched' }, start: { agent_id: 'agt_b', attempt: 1 } });
    expect(last(fresh.id)).toMatchObject({ from: null, job: { status: 'queued' } });
    expect([usage.count({ agentId: 'agt_a' }), usage.count({ agentId: 'agt_b' })]).toEqual([1, 1]);
  });
});

describe('shared tables', () => {
  it('are read again on a timer, even when no notice comes', async () => {
    const url = await postgres.newDatabase();
    const changes = new TableChanges(await pool(url), 100);
    closing.push(() => changes.close());
    let reads = 0;
    changes.on('api_keys', () => reads++);
    await changes.listen();
    await until(() => reads >= 3, 5_000, 'three re-reads without a notice');
  });

  it('ignore a table notice that throws in a listener without ending the process', async () => {
    const url = await postgres.newDatabase();
    const changes = new TableChanges(await pool(url));
    closing.push(() => changes.close());
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let calls = 0;
    changes.on('settings', () => {
      calls++;
      throw new Error('a listener bug');
    });
    await changes.listen();
    const intruder = await stranger(url);
    await intruder.query(`NOTIFY chatbridge_tables, 'settings'`);
    await intruder.query(`NOTIFY chatbridge_tables, 'settings'`);
    await until(() => calls === 2, 5_000, 'both notices');
  });
});

describe('locks held by someone else', () => {
  it("fail a submission in seconds, with a clear error, when another session holds the account's queue lock", async () => {
    const url = await postgres.newDatabase();
    const a = await store(url, 'dev_a');
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    closing.push(() => holder.end());
    await holder.query(`SELECT pg_advisory_lock($1, hashtext(''))`, [0x63627131]);
    const began = Date.now();
    const error = await a.submit({ job: newJob(), queuedLimit: 1000 }).then(
      () => undefined,
      (e: Error) => e,
    );
    const waited = Date.now() - began;
    expect(error).toMatchObject({ code: '55P03' });
    expect(waited).toBeGreaterThanOrEqual(LIMITS.databaseLockMs - 100);
    expect(waited).toBeLessThan(LIMITS.databaseLockMs + 5_000);
    const refusal = toApiError(error!);
    expect([refusal.code, refusal.message]).toEqual([
      'INTERNAL_ERROR',
      `The database is busy: a lock another session holds was not released within ${LIMITS.databaseLockMs / 1000} s. Retry the request.`,
    ]);
  }, 30_000);

  it('keep the connections alive at the TCP level', async () => {
    const p = await pool(await postgres.newDatabase());
    expect(p.options).toMatchObject({ keepAlive: true, lock_timeout: LIMITS.databaseLockMs });
  });
});
