/**
 * The shared database as other roles and a flaky network see it (issues 19 and 34): a service
 * refuses to start on a database other roles can reach, or closes it; notices anyone may send
 * are hints, never facts (nothing is counted or logged from one), never a crash, and a burst
 * of them costs a read or two, not one each; moves announced while the listener was down are
 * caught up; every shared table is read again on a timer; the locks are rows of our tables,
 * which another role cannot take, and one our own session holds fails a request in seconds
 * instead of hanging it.
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
import { systemClock } from '../../main/core/clock.js';
import { randomIds } from '../../main/core/ids.js';
import { LogBook } from '../../main/logs/log-book.js';
import { logJobEnds } from '../../main/logs/log-feeds.js';
import { ServiceMetrics } from '../../main/metrics/service-metrics.js';
import { SharedTable } from '../../main/storage/postgres/shared-table.js';
import { serveStorage, StorageRefused, type GrantsPolicy } from '../../main/storage/storage.js';
import { testDataDir } from '../support/harness.js';
import { parsePrometheusText } from '../support/prom-text.js';
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

/**
 * A role with no rights on our tables, connected to our database, as another tenant of the
 * cluster would be on a database left open (the test databases are closed: it is let in).
 */
async function stranger(url: string): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DO $$ BEGIN CREATE ROLE stranger LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
  await admin.query(`GRANT CONNECT ON DATABASE ${admin.escapeIdentifier(new URL(url).pathname.slice(1))} TO stranger`);
  await admin.end();
  const client = new pg.Client({ connectionString: asStranger(url) });
  await client.connect();
  // A session the test ended (a service closing the database to strangers) has nothing left to end.
  client.on('error', () => {});
  closing.push(() => client.end().catch(() => {}));
  return client;
}

function asStranger(url: string): string {
  const as = new URL(url);
  as.username = 'stranger';
  return as.toString();
}

/** Opens a service's storage on `url` as serve does (device dev_s), with `grants` as the policy; what it warns is pushed to `said`. */
async function serve(url: string, grants: GrantsPolicy, said: string[] = []) {
  const storage = await serveStorage({
    dataDir: testDataDir(),
    databaseUrl: url,
    deviceId: 'dev_s',
    profile: 'personal',
    clock: systemClock,
    ids: randomIds,
    onError: () => {},
    grants,
    onWarning: (line) => said.push(line),
  });
  closing.push(() => storage.close());
  return storage;
}

describe('a service starting on a database other roles can reach', () => {
  it('refuses it, naming who can reach it; with fix-grants closes it and ends their sessions; with keep-grants warns', async () => {
    const url = await postgres.newDatabase();
    const db = new URL(url).pathname.slice(1);
    const intruder = await stranger(url);
    const admin = await pool(url);
    const tail = "Such a role can hear job ids on LISTEN and send ChatBridge's notices";
    await expect(serve(url, 'check')).rejects.toThrow(
      new StorageRefused(
        `The database "${db}" is open to other roles: role stranger may connect; role stranger has a session open on it. ${tail}. ` +
          'Close it with serve --fix-grants (or chatbridge migrate, as its owner), or pass --keep-grants if you manage its grants yourself.',
      ),
    );
    // As PostgreSQL makes a database: every role may connect.
    await admin.query(`GRANT CONNECT ON DATABASE ${db} TO PUBLIC`);
    await expect(serve(url, 'check')).rejects.toThrow(/is open to other roles: every role may connect \(CONNECT is granted to PUBLIC\); role stranger has a session/);

    const warned: string[] = [];
    await serve(url, 'keep', warned);
    expect(warned).toEqual([`The database "${db}" is open to other roles: every role may connect (CONNECT is granted to PUBLIC); role stranger has a session open on it. ${tail} (--keep-grants: left as it is).`]);

    const said: string[] = [];
    await serve(url, 'fix', said);
    expect(said).toEqual([`Database "${db}" closed to other roles: only postgres and its owner may connect or use schema "public" (--keep-grants leaves grants alone).`]);
    await expect(intruder.query('SELECT 1')).rejects.toThrow();
    await expect(connect(asStranger(url))).rejects.toThrow(/permission denied for database/);
  });
});

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
    await until(() => heard.length === 1, 15_000, 'the submission heard');
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
    await until(() => heard.length === 2, 15_000, 'the well-formed forged notice');
    expect(heard[1]).toEqual({ job, from: 'queued', heard: true });

    // A real dispatch after all that is heard, its start read from the attempts table.
    await a.dispatch([{ jobId: job.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 5);
    await until(() => heard.length === 3, 15_000, 'the dispatch heard');
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
    await until(() => heard.length === 1, 15_000, 'the first submission heard');

    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN chatbridge_jobs'`);
    await until(async () => (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN chatbridge_jobs'`)).rowCount === 0, 15_000, 'the listener gone');
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

describe('notices replayed by another role', () => {
  it("count and log nothing, and a burst naming one job is handed on once a read, not once a notice", async () => {
    const url = await postgres.newDatabase();
    const [a, c] = [await store(url, 'dev_a'), await store(url, 'dev_c')];
    await a.listen();
    // No agents, no usage and no caps: the scrape's gauges read nothing else.
    const metrics = new ServiceMetrics({
      store: a,
      clock: systemClock,
      pool: { list: () => [] } as never,
      usage: { count: () => 0 } as never,
      settings: { get: () => ({ globalCap: null, providerCaps: {} }) } as never,
    });
    closing.push(() => metrics.stop());
    const log = new LogBook(systemClock);
    closing.push(logJobEnds(a, log));
    const heard: StoreEvent[] = [];
    a.onEvent((e) => heard.push(e));
    const finished = async () => parsePrometheusText(await metrics.registry.text()).get('chatbridge_jobs_finished_total')!.samples.map((s) => [s.labels.status, s.value]);

    // A job expires on this instance: counted and logged once, by it.
    const job = ((await a.submit({ job: newJob({ deadline_at: T0 + 1 }), queuedLimit: 1000 })) as { job: JobRow }).job;
    await a.expireDue(T0 + 2);
    expect(await finished()).toEqual([['expired', 1]]);
    expect(log.recent().map((e) => e.message)).toEqual([`Job ${job.id} expired after 0 tries: JOB_TIMEOUT (The job deadline passed before it could finish.)`]);

    // 500 notices of its end, each a distinct payload (so one transaction delivers them all).
    const intruder = await stranger(url);
    await intruder.query(
      `SELECT pg_notify('chatbridge_jobs', json_build_array('dev_x' || i, $1::text, 'dispatched')::text) FROM generate_series(1, 500) AS i`,
      [job.id],
    );
    // A real move of another instance after them: once it is heard, so are they.
    const after = ((await c.submit({ job: newJob(), queuedLimit: 1000 })) as { job: JobRow }).job;
    await until(() => heard.some((e) => e.job.id === after.id), 15_000, 'the move after the replay');

    expect(await finished()).toEqual([['expired', 1]]);
    expect(log.recent()).toHaveLength(1);
    const replayed = heard.filter((e) => e.job.id === job.id && e.heard);
    expect(replayed.length).toBeGreaterThan(0);
    expect(replayed.length).toBeLessThanOrEqual(10);
    expect(replayed[0]).toMatchObject({ job: { id: job.id, status: 'expired' }, from: 'dispatched', heard: true });
  });
});

describe('shared tables', () => {
  it('read once more after a burst of notices, however many came while a read was under way', async () => {
    const url = await postgres.newDatabase();
    const changes = new TableChanges(await pool(url));
    closing.push(() => changes.close());
    let reads = 0;
    let release = () => {};
    const table = new SharedTable(await pool(url), changes, {
      table: 'api_keys',
      // The second read (the first a notice asks for) waits until the test lets it go.
      read: async () => (++reads === 2 ? await new Promise<number>((resolve) => (release = () => resolve(reads))) : reads),
      onError: () => {},
    });
    await table.load();
    let notices = 0;
    changes.on('api_keys', () => notices++);
    await changes.listen();
    const intruder = await stranger(url);
    await intruder.query(Array.from({ length: 2_000 }, () => `BEGIN; NOTIFY chatbridge_tables, 'api_keys'; COMMIT;`).join(' '));
    await until(() => notices === 2_000, 10_000, 'the 2 000 notices');
    release();
    await table.load();
    expect(reads).toBe(3);
  });

  it('are read again on a timer, even when no notice comes', async () => {
    const url = await postgres.newDatabase();
    const changes = new TableChanges(await pool(url), 100);
    closing.push(() => changes.close());
    let reads = 0;
    changes.on('api_keys', () => reads++);
    await changes.listen();
    await until(() => reads >= 3, 15_000, 'three re-reads without a notice');
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
    await until(() => calls === 2, 15_000, 'both notices');
  });
});

describe('locks held by someone else', () => {
  it('held as advisory keys by another role, stop no sweep and hold up no submission', async () => {
    const url = await postgres.newDatabase();
    const [a, b] = [await store(url, 'dev_a'), await store(url, 'dev_b')];
    const intruder = await stranger(url);
    // The keys ChatBridge's sweep, caps and personal queue locks once were.
    await intruder.query(`SELECT pg_advisory_lock(k) FROM unnest($1::bigint[]) AS k`, [['27974270758249840', '109274225274995']]);
    await intruder.query(`SELECT pg_advisory_lock(1667395889, hashtext(''))`);
    const job = ((await a.submit({ job: newJob(), queuedLimit: 1000 })) as { job: JobRow }).job;
    await a.dispatch([{ jobId: job.id, agentId: 'agt_a', provider: 'chatgpt', caps: { agent: 5, provider: null, global: null } }], T0 + 1);
    // dev_a never registered as a device: to dev_b its attempt is lost.
    const swept = await b.requeueLostDevices(T0 + 60_000, 10_000);
    expect(swept.map((m) => [m.job.id, m.job.status])).toEqual([[job.id, 'queued']]);
  });

  it("fail a submission in seconds, with a clear error, when another session holds the account's queue lock", async () => {
    const url = await postgres.newDatabase();
    const a = await store(url, 'dev_a');
    await a.submit({ job: newJob(), queuedLimit: 1000 });
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    closing.push(() => holder.end());
    await holder.query(`BEGIN; SELECT 1 FROM locks WHERE name = 'queue ' FOR UPDATE`);
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
