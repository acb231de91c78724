/**
 * Devices and leases on PostgreSQL: a device that dies loses its jobs to the queue within
 * the lease budget (15 s), exactly once however many devices sweep; one that leaves cleanly
 * gives them back at once; one that comes back late has its result dropped. The last test
 * SIGKILLs a device in a process of its own (dist/test/support/pg-device-process.js: build first).
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../main/core/clock.js';
import type { JobRow, StoreEvent } from '../../main/core/jobs.js';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';
import { connect } from '../../main/storage/postgres/connect.js';
import { DEFAULT_LEASE, FORGET_AFTER_MS, Device } from '../../main/storage/postgres/devices.js';
import { PgJobStore } from '../../main/storage/postgres/job-store.js';
import { ManualClock } from '../support/manual-clock.js';
import { trackProcesses } from '../support/processes.js';
import { until } from '../support/until.js';
import { newJob, T0 } from '../support/new-job.js';
import { startMigratedCluster, type MigratedCluster } from './migrated-cluster.js';

const DEVICE_PROCESS = join(PACKAGE_ROOT, 'dist/test/support/pg-device-process.js');
const { heartbeatMs, leaseMs } = DEFAULT_LEASE;
const BUDGET_MS = 15_000;

let postgres: MigratedCluster;
beforeAll(async () => {
  postgres = await startMigratedCluster();
});
afterAll(() => postgres?.cluster.stop());

const processes = trackProcesses('chatbridge-pg-devices-');

interface Instance {
  store: PgJobStore;
  device: Device;
  errors: Error[];
}

let url: string;
let admin: pg.Pool;
const opened: Instance[] = [];
afterEach(async () => {
  for (const { device } of opened) device.stop();
  await Promise.all(opened.splice(0).map(({ store }) => store.close().catch(() => {})));
  await admin?.end();
});

async function freshDatabase(): Promise<void> {
  url = await postgres.newDatabase();
  admin = await connect(url, { max: 4 });
}

/** An instance on the test's database: its store and, registered, its device. */
async function instance(id: string, clock: ManualClock | typeof systemClock, name = id): Promise<Instance> {
  const pool = await connect(url);
  const store = new PgJobStore(pool, id);
  const errors: Error[] = [];
  const device = new Device(pool, store, { name, baseUrl: `http://${name}.lan:8787` }, clock, (e) => errors.push(e));
  const made = { store, device, errors };
  opened.push(made);
  await device.start();
  return made;
}

/** Moves the manual clock on in half-second steps, letting each live device's beat and sweep finish. */
async function run(clock: ManualClock, ms: number, live: Instance[], until?: () => boolean): Promise<void> {
  for (let done = 0; done < ms && !until?.(); done += 500) {
    clock.advance(500);
    await Promise.all(live.map((i) => i.device.settled()));
  }
}

async function running(on: Instance, agent: string, createdAt = T0): Promise<JobRow> {
  const submitted = await on.store.submit({ job: newJob({ created_at: createdAt }), queuedLimit: 1000 });
  if (submitted.kind !== 'created') throw new Error(submitted.kind);
  const [job] = await on.store.dispatch([{ jobId: submitted.job.id, agentId: agent, provider: 'chatgpt' }], createdAt + 1);
  return job!;
}

/** The first event of `store` in which job `id` goes back to the queue. */
function requeueOf(store: PgJobStore, id: string, at: () => number): Promise<{ event: StoreEvent; at: number }> {
  return new Promise((resolve) => {
    const stop = store.onEvent((event) => {
      if (event.job.id === id && event.from === 'dispatched' && event.job.status === 'queued') {
        stop();
        resolve({ event, at: at() });
      }
    });
  });
}

const answer = { outcome: 'succeeded', response: '4', conversationRef: 'cv_1', conversationAddress: 'https://chat.example/c/1' } as const;

describe('devices on one PostgreSQL', () => {
  it("re-queues a dead device's job within the lease budget, through a live device's sweep, heard by every instance", async () => {
    await freshDatabase();
    const clock = new ManualClock(T0);
    const a = await instance('dev_a', clock, 'laptop');
    const b = await instance('dev_b', clock, 'desktop');
    const watcher = new PgJobStore(await connect(url), 'dev_watch');
    await watcher.listen();
    const job = await running(a, 'agt_a', clock.now());

    // Alive, A keeps its job however long it runs.
    await run(clock, 30_000, [a, b]);
    expect((await b.store.get(job.id))!.status).toBe('dispatched');
    expect((await b.device.list()).map((d) => [d.name, d.online])).toEqual([['desktop', true], ['laptop', true]]);

    // A dies: no more beats, its connections gone, nothing said.
    a.device.stop();
    await a.store.close();
    const diedAt = clock.now();
    const requeued = requeueOf(b.store, job.id, () => clock.now());
    const heard = requeueOf(watcher, job.id, () => clock.now());
    let seen = false;
    void requeued.then(() => (seen = true));
    await run(clock, BUDGET_MS + 5_000, [b], () => seen);
    const { event, at } = await requeued;
    console.log(`dead device's job re-queued ${at - diedAt} ms (clock) after its death`);
    // Not before a lease without beats (its last beat was at most one interval before death)...
    expect(at - diedAt).toBeGreaterThan(leaseMs - heartbeatMs);
    // ...and within the budget.
    expect(at - diedAt).toBeLessThanOrEqual(BUDGET_MS);
    expect(event.job).toMatchObject({ status: 'queued', attempts: 1 });
    expect((await heard).event.job).toEqual(event.job);
    expect(await b.store.attempts(job.id)).toEqual([expect.objectContaining({ attempt: 1, agent_id: 'agt_a', outcome: 'agent_lost', error_code: 'AGENT_LOST' })]);
    expect((await b.device.list()).map((d) => [d.name, d.online])).toEqual([['desktop', true], ['laptop', false]]);

    // B takes it and finishes it.
    await b.store.dispatch([{ jobId: job.id, agentId: 'agt_b', provider: 'chatgpt' }], clock.now());
    expect((await b.store.endAttempt(job.id, 2, answer, clock.now() + 1000))!.job).toMatchObject({ status: 'succeeded', response: '4', agent_id: 'agt_b' });
    expect(b.errors).toEqual([]);
    await watcher.close();
  });

  it('re-queues each lost job once when several devices sweep at the same moment', async () => {
    await freshDatabase();
    const clock = new ManualClock(T0);
    const a = await instance('dev_a', clock);
    const jobs: JobRow[] = [];
    for (let i = 0; i < 20; i++) jobs.push(await running(a, 'agt_a', T0 + i));
    a.device.stop();
    const sweepers = await Promise.all(['dev_b', 'dev_c', 'dev_d'].map((id) => instance(id, clock)));
    const events: StoreEvent[] = [];
    for (const s of sweepers) s.store.onEvent((e) => events.push(e));
    const later = T0 + leaseMs + 1_000;
    for (let round = 0; round < 3; round++) {
      const moved = await Promise.all(sweepers.map((s) => s.store.requeueLostDevices(later + round, leaseMs)));
      if (round === 0) expect(moved.flat().map((m) => m.job.id).sort()).toEqual(jobs.map((j) => j.id).sort());
      else expect(moved.flat()).toEqual([]);
    }
    expect(events).toHaveLength(20);
    const attempts = await admin.query(`SELECT job_id, outcome, COUNT(*)::int AS n FROM attempts GROUP BY job_id, outcome`);
    expect(attempts.rows).toHaveLength(20);
    expect(attempts.rows.every((r) => r.outcome === 'agent_lost' && r.n === 1)).toBe(true);
    expect(await a.store.queuedCount(null)).toBe(20);
  });

  it('leaves alone a job that moved on while the sweep waited for it: run again elsewhere, its new attempt is not lost', async () => {
    await freshDatabase();
    const clock = new ManualClock(T0);
    const a = await instance('dev_a', clock);
    const b = await instance('dev_b', clock);
    const job = await running(a, 'agt_a');
    // Another transaction holds the job as the sweep finds it lost...
    const holder = await admin.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE', [job.id]);
      const sweep = b.store.requeueLostDevices(T0 + leaseMs + 1_000, leaseMs);
      await until(
        async () => (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%lost_attempt%'`)).rowCount,
        5_000,
        'the sweep to wait for the job',
      );
      // ...and writes what A's late failure and B's new dispatch would: attempt 1 failed, attempt 2 runs on B.
      await holder.query(`UPDATE attempts SET ended_at = $2, outcome = 'failed', error_code = 'PROVIDER_ERROR' WHERE job_id = $1 AND attempt = 1`, [job.id, T0 + 5_000]);
      await holder.query(`INSERT INTO attempts (job_id, attempt, agent_id, provider, device_id, started_at) VALUES ($1, 2, 'agt_b', 'chatgpt', 'dev_b', $2)`, [job.id, T0 + 6_000]);
      await holder.query(`UPDATE jobs SET attempts = 2, agent_id = 'agt_b' WHERE id = $1`, [job.id]);
      await holder.query('COMMIT');
      expect(await sweep).toEqual([]);
    } finally {
      holder.release();
    }
    expect((await b.store.attempts(job.id)).map((t) => [t.attempt, t.outcome])).toEqual([[1, 'failed'], [2, null]]);
    expect(await b.store.get(job.id)).toMatchObject({ status: 'dispatched', agent_id: 'agt_b' });
  });

  it("fails a lost job whose attempts are used up, as a restart would", async () => {
    await freshDatabase();
    const clock = new ManualClock(T0);
    const a = await instance('dev_a', clock);
    const b = await instance('dev_b', clock);
    const submitted = await a.store.submit({ job: newJob({ max_attempts: 1 }), queuedLimit: 1000 });
    const [job] = await a.store.dispatch([{ jobId: (submitted as { job: JobRow }).job.id, agentId: 'agt_a', provider: 'chatgpt' }], T0);
    a.device.stop();
    // A device sweeping after a stall past its own lease leaves its own jobs: it is alive to run them.
    expect(await a.store.requeueLostDevices(T0 + leaseMs + 1, leaseMs)).toEqual([]);
    const [moved] = await b.store.requeueLostDevices(T0 + leaseMs + 1, leaseMs);
    expect(moved).toMatchObject({ from: 'dispatched', job: { id: job!.id, status: 'failed', finished_at: T0 + leaseMs + 1 } });
  });

  it('gives back the jobs of a device that leaves cleanly at once, and shows it offline at once', async () => {
    await freshDatabase();
    const clock = new ManualClock(T0);
    const a = await instance('dev_a', clock, 'laptop');
    const b = await instance('dev_b', clock, 'desktop');
    const mine = [await running(a, 'agt_a'), await running(a, 'agt_a2', T0 + 1)];
    const theirs = await running(b, 'agt_b', T0 + 2);
    const moved = await a.device.leave();
    expect(moved.map((m) => [m.job.id, m.job.status]).sort()).toEqual(mine.map((j) => [j.id, 'queued']).sort());
    expect((await b.store.get(theirs.id))!.status).toBe('dispatched');
    for (const job of mine) expect((await b.store.attempts(job.id))[0]).toMatchObject({ outcome: 'agent_lost', error_code: 'AGENT_LOST' });
    const devices = await b.device.list();
    expect(devices).toEqual([
      { id: 'dev_b', name: 'desktop', base_url: 'http://desktop.lan:8787', online: true, started_at: T0, heartbeat_at: T0 },
      { id: 'dev_a', name: 'laptop', base_url: 'http://laptop.lan:8787', online: false, started_at: T0, heartbeat_at: T0 },
    ]);
    // Registering again brings it back online.
    await a.device.start();
    expect((await b.device.list()).every((d) => d.online)).toBe(true);
  });

  it('forgets a device silent for a week, with the agents it published; a live one stays', async () => {
    await freshDatabase();
    const clock = new ManualClock(T0);
    const a = await instance('dev_a', clock, 'old laptop');
    const b = await instance('dev_b', clock, 'desktop');
    await admin.query(
      `INSERT INTO device_agents (id, device_id, provider, name, enabled, position, created_at, state, ready)
       VALUES ('agt_old', 'dev_a', 'claude', 'claude-1', true, 0, $1, 'idle', true)`,
      [T0],
    );
    a.device.stop();
    // A week less a lease of silence: still listed (offline).
    clock.advance(FORGET_AFTER_MS - leaseMs);
    await run(clock, leaseMs - 500, [b]);
    expect((await b.device.list()).map((d) => [d.id, d.online])).toEqual([['dev_b', true], ['dev_a', false]]);
    // A week and a sweep: gone.
    await run(clock, 500 + DEFAULT_LEASE.sweepMs, [b]);
    expect((await b.device.list()).map((d) => d.id)).toEqual(['dev_b']);
    expect((await admin.query(`SELECT id FROM device_agents`)).rows).toEqual([]);
  });

  it('drops the late result of a device that comes back after its job was re-queued', async () => {
    await freshDatabase();
    const clock = new ManualClock(T0);
    const a = await instance('dev_a', clock);
    const b = await instance('dev_b', clock);
    const job = await running(a, 'agt_a');
    // A stalls past its lease (its connections stay), and B's sweep takes its job back.
    a.device.stop();
    const requeued = requeueOf(b.store, job.id, () => clock.now());
    let seen = false;
    void requeued.then(() => (seen = true));
    await run(clock, BUDGET_MS, [b], () => seen);
    await requeued;
    // A comes back: beating again, with the answer of the attempt it was running.
    await a.device.start();
    expect(await a.store.endAttempt(job.id, 1, answer, clock.now())).toBeNull();
    expect((await a.store.get(job.id))!.status).toBe('queued');
    // Still dropped once the job runs again elsewhere, a success or a failure alike.
    await b.store.dispatch([{ jobId: job.id, agentId: 'agt_b', provider: 'chatgpt' }], clock.now());
    expect(await a.store.endAttempt(job.id, 1, answer, clock.now())).toBeNull();
    expect(await a.store.endAttempt(job.id, 1, { outcome: 'failed', errorCode: 'PROVIDER_ERROR' }, clock.now())).toBeNull();
    // Both alive, neither sweep touches B's attempt.
    await run(clock, 2 * leaseMs, [a, b]);
    expect(await b.store.get(job.id)).toMatchObject({ status: 'dispatched', agent_id: 'agt_b', attempts: 2 });
    expect((await b.store.endAttempt(job.id, 2, { ...answer, response: 'four' }, clock.now()))!.job).toMatchObject({ status: 'succeeded', response: 'four' });
    expect((await b.store.attempts(job.id)).map((t) => t.outcome)).toEqual(['agent_lost', 'succeeded']);
  });

  it('re-queues the job of a SIGKILLed device process in under 15 s (real time, default lease)', async () => {
    await freshDatabase();
    const b = await instance('dev_b', systemClock);
    const child = processes.launch([DEVICE_PROCESS, url, 'dev_killed']);
    const line = await new Promise<string>((resolve, reject) => {
      child.child.stdout!.on('data', () => {
        const m = /^dispatched (\S+)$/m.exec(child.out.stdout);
        if (m) resolve(m[1]!);
      });
      void child.closed.then((e) => reject(new Error(`device process ended (${e.code ?? e.signal}): ${child.out.stderr}`)));
    });
    const requeued = requeueOf(b.store, line, () => performance.now());
    const killedAt = performance.now();
    child.child.kill('SIGKILL');
    const { at } = await requeued;
    const failoverMs = Math.round(at - killedAt);
    console.log(`SIGKILLed device's job re-queued ${failoverMs} ms after the kill`);
    expect(failoverMs).toBeLessThan(BUDGET_MS);
    const attempts = await admin.query(`SELECT device_id, outcome FROM attempts WHERE job_id = $1`, [line]);
    expect(attempts.rows).toEqual([{ device_id: 'dev_killed', outcome: 'agent_lost' }]);
    expect(b.errors).toEqual([]);
  }, 30_000);
});
