/**
 * The WebhookOutbox contract on PostgreSQL, and what only several instances on one database
 * show: each due delivery claimed by one sender at a time, a dead instance's claim taken
 * over after its lease, deliveries and redeliveries sent by whichever instance is free, to a
 * real HTTPS receiver. The `webhooks` commands with --database go through the built CLI
 * (needs dist/).
 */
import { execFile } from 'node:child_process';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../main/core/clock.js';
import type { JobRow } from '../../main/core/jobs.js';
import { connect } from '../../main/storage/postgres/connect.js';
import { PgJobStore } from '../../main/storage/postgres/job-store.js';
import { TableChanges } from '../../main/storage/postgres/table-changes.js';
import { Retention, WEBHOOK_LOG_DAYS } from '../../main/service/retention.js';
import { WebhookDeliveries } from '../../main/webhooks/deliveries.js';
import { httpsTransport } from '../../main/webhooks/https-transport.js';
import { PgWebhookOutbox } from '../../main/storage/postgres/outbox.js';
import { DEFAULT_LIMITS, WebhookSender } from '../../main/webhooks/sender.js';
import { ManualClock } from '../support/manual-clock.js';
import { newJob } from '../support/new-job.js';
import { CLI } from '../support/processes.js';
import { until } from '../support/until.js';
import { makeCertificate, verifySignature, WebhookReceiver, type Certificate, type Responder } from '../support/webhook-receiver.js';
import { startMigratedCluster, type MigratedCluster } from './migrated-cluster.js';
import { webhookOutboxContract, type OutboxUnderTest } from './webhook-outbox-contract.js';
import { DAY_MS } from '../../main/core/timestamps.js';

const LEASE_MS = 60_000;
const SECRET = 'whsec_test';

let postgres: MigratedCluster;
let cert: Certificate;
beforeAll(async () => {
  cert = makeCertificate();
  postgres = await startMigratedCluster();
});
afterAll(async () => {
  await postgres?.cluster.stop();
  cert?.remove();
});

/** The contract's database, emptied before each of its tests (much faster than a new one). */
let contractDb: { url: string; admin: pg.Pool } | undefined;
afterAll(() => contractDb?.admin.end());

webhookOutboxContract('PostgreSQL', async (): Promise<OutboxUnderTest> => {
  if (!contractDb) {
    const url = await postgres.newDatabase();
    contractDb = { url, admin: await connect(url, { max: 1 }) };
  }
  await contractDb.admin.query(`TRUNCATE jobs, attempts, job_deltas, job_files, webhook_deliveries, webhook_attempts`);
  const pool = await connect(contractDb.url);
  const store = new PgJobStore(pool, 'dev_a');
  return { outbox: new PgWebhookOutbox(pool, 'dev_a', new TableChanges(pool), LEASE_MS), store, close: () => store.close() };
});

/**
 * One ChatBridge instance as far as webhooks go: its job store (hearing the others' moves),
 * its outbox (hearing redeliveries) and, unless `sends` is false, a sender woken as the
 * service wakes it, on the given clock.
 */
interface Instance {
  store: PgJobStore;
  outbox: PgWebhookOutbox;
  sender: WebhookSender | undefined;
  /** Stops sending (unless `dies`: then the claims it holds stay) and closes the pool. */
  stop(dies?: boolean): Promise<void>;
}

const instances: Instance[] = [];
const receivers: WebhookReceiver[] = [];
let admin: pg.Pool | undefined;
afterEach(async () => {
  await Promise.all(instances.splice(0).map((i) => i.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await admin?.end();
  admin = undefined;
});

async function instance(url: string, deviceId: string, clock: Clock, { sends = true, perOrigin = DEFAULT_LIMITS.perOrigin } = {}): Promise<Instance> {
  const pool = await connect(url);
  const store = new PgJobStore(pool, deviceId);
  const changes = new TableChanges(pool);
  const outbox = new PgWebhookOutbox(pool, deviceId, changes, LEASE_MS);
  await Promise.all([store.listen(), changes.listen()]);
  let sender: WebhookSender | undefined;
  if (sends) {
    sender = new WebhookSender(
      outbox,
      async () => SECRET,
      async (jobId) => {
        const job = (await store.get(jobId))!;
        return { url: job.callback_url!, body: JSON.stringify({ id: job.id, status: job.status }), account: job.account_id };
      },
      httpsTransport({ ca: cert.cert }),
      clock,
      { ...DEFAULT_LIMITS, perOrigin, shutdownGraceMs: 0 },
    );
    sender.wakeOnFinalJobs(store);
    sender.start();
  }
  let stopped = false;
  const self: Instance = {
    store,
    outbox,
    sender,
    async stop(dies = false) {
      if (stopped) return;
      stopped = true;
      if (!dies) await sender?.stop();
      changes.close();
      await store.close();
    },
  };
  instances.push(self);
  return self;
}

async function receiver(respond?: Responder): Promise<WebhookReceiver> {
  const r = await WebhookReceiver.start(cert, respond);
  receivers.push(r);
  return r;
}

async function freshDatabase(): Promise<string> {
  const url = await postgres.newDatabase();
  admin = await connect(url, { max: 2 });
  return url;
}

/** A queued job with a callback to `hook`, submitted on `on`. */
async function queued(on: Instance, hook: WebhookReceiver, at: number): Promise<JobRow> {
  const result = await on.store.submit({ job: newJob({ callback_url: hook.url(), created_at: at }), queuedLimit: 10_000 });
  if (result.kind !== 'created') throw new Error(result.kind);
  return result.job;
}

const sentBy = async (jobId: string) =>
  (await admin!.query<{ device_id: string; round: number }>(`SELECT device_id, round FROM webhook_attempts WHERE job_id = $1 ORDER BY attempt`, [jobId])).rows;

describe('PostgreSQL webhook outbox: claims', () => {
  it('gives each due delivery to one of two instances claiming at once, and to none other until recorded or the lease ends', async () => {
    const url = await freshDatabase();
    const clock = new ManualClock();
    const hook = await receiver();
    const [a, b] = [await instance(url, 'dev_a', clock, { sends: false }), await instance(url, 'dev_b', clock, { sends: false })];
    const jobs = [];
    for (let i = 0; i < 60; i++) jobs.push(await queued(a, hook, clock.now()));
    for (const job of jobs) await a.store.cancel(job.id, clock.now());
    const origin = new URL(hook.url()).origin;
    const claimAll = async (outbox: PgWebhookOutbox) => {
      const won: string[] = [];
      for (let round = 0; round < 10; round++) won.push(...(await outbox.dueFor({ account: '', origin }, clock.now(), [], 8)).map((d) => d.job_id));
      return won;
    };
    const [wonA, wonB] = await Promise.all([claimAll(a.outbox), claimAll(b.outbox)]);
    expect([...wonA, ...wonB].sort()).toEqual(jobs.map((j) => j.id).sort());
    console.log(`concurrent claims split: ${wonA.length} on A, ${wonB.length} on B`);

    // The claims of the instance that won more (A, unless B was quicker on a busy machine) hold
    // against the other until their lease ends; its result lets one go at once.
    const [holder, other, held] = wonA.length >= wonB.length ? [a, b, wonA] : [b, a, wonB];
    const [holderId, otherId] = holder === a ? ['dev_a', 'dev_b'] : ['dev_b', 'dev_a'];
    const [first, second] = [held[0]!, held[1]!];
    await holder.outbox.record({ jobId: first, round: 1, startedAt: clock.now(), durationMs: 5, statusCode: 503, error: null });
    clock.advance(30_000); // `first` is due again 30 s after its failed attempt ended: 5 ms from now
    expect(await other.outbox.dueFor({ account: '', origin }, clock.now(), [], 100)).toEqual([]);
    clock.advance(10);
    expect((await other.outbox.dueFor({ account: '', origin }, clock.now(), [], 100)).map((d) => d.job_id)).toEqual([first]);
    clock.advance(LEASE_MS - 30_010);
    const takenOver = (await other.outbox.dueFor({ account: '', origin }, clock.now(), [], 100)).map((d) => d.job_id);
    expect(takenOver).toHaveLength(jobs.length - 1);
    expect(takenOver).toContain(second);
    // The holder's late result of `second` is logged, and leaves the other's claim as it is.
    await holder.outbox.record({ jobId: second, round: 1, startedAt: clock.now(), durationMs: 5, statusCode: 500, error: null });
    expect(await sentBy(second)).toEqual([{ device_id: holderId, round: 1 }]);
    const row = await admin!.query(`SELECT claimed_by, claim_until FROM webhook_deliveries WHERE job_id = $1`, [second]);
    expect(row.rows).toEqual([{ claimed_by: otherId, claim_until: clock.now() + LEASE_MS }]);
  });
});

describe('PostgreSQL webhook outbox: two instances sending', () => {
  it('delivers each of 100 jobs made final on either instance exactly once, within each instance\'s per-origin limit', async () => {
    const url = await freshDatabase();
    const clock = new ManualClock(Date.now());
    const hook = await receiver(async () => {
      await new Promise((r) => setTimeout(r, 5));
      return { status: 204 };
    });
    const perOrigin = 4;
    const [a, b] = [await instance(url, 'dev_a', clock, { perOrigin }), await instance(url, 'dev_b', clock, { perOrigin })];
    const jobs = [];
    for (let i = 0; i < 100; i++) jobs.push(await queued(i % 2 ? a : b, hook, clock.now()));
    const began = performance.now();
    // Made final half on each instance, at once: both senders hear every one (their own store's
    // events, and the other's moves through NOTIFY) and race for it.
    await Promise.all(jobs.map((job, i) => (i % 2 ? b : a).store.cancel(job.id, clock.now())));
    await hook.waitFor(100, 20_000);
    const ms = Math.round(performance.now() - began);
    await until(async () => (await admin!.query(`SELECT COUNT(*)::int AS n FROM webhook_deliveries WHERE state = 'delivered'`)).rows[0].n === 100, 10_000, 'all recorded');
    const ids = hook.jobs().map((j) => j.id);
    expect(ids).toHaveLength(100);
    expect(new Set(ids).size).toBe(100);
    expect(hook.received.every((r) => verifySignature(SECRET, r, Date.now()))).toBe(true);
    expect(hook.maxActive).toBeLessThanOrEqual(2 * perOrigin);
    const split = await admin!.query<{ device_id: string; n: number }>(`SELECT device_id, COUNT(*)::int AS n FROM webhook_attempts GROUP BY device_id ORDER BY device_id`);
    expect(split.rows.reduce((sum, r) => sum + r.n, 0)).toBe(100);
    console.log(`100 deliveries in ${ms} ms; sent by ${split.rows.map((r) => `${r.device_id} ${r.n}`).join(', ')}; at most ${hook.maxActive} at once at the receiver`);
  });

  it('sends at once the delivery of a job made final on an instance that does not send (no timer involved)', async () => {
    const url = await freshDatabase();
    const clock = new ManualClock(Date.now());
    const hook = await receiver();
    const sending = await instance(url, 'dev_a', clock);
    const silent = await instance(url, 'dev_b', clock, { sends: false });
    const job = await queued(silent, hook, clock.now());
    await silent.store.cancel(job.id, clock.now());
    await hook.waitFor(1);
    expect(hook.jobs()[0]).toEqual({ id: job.id, status: 'cancelled' });
    await until(async () => (await sentBy(job.id)).length === 1);
    expect(await sentBy(job.id)).toEqual([{ device_id: 'dev_a', round: 1 }]);
    expect(sending.sender!.inFlightCount()).toBe(0);
  });

  it('delivers, after the lease, a delivery claimed by an instance that died before sending it', async () => {
    const url = await freshDatabase();
    const clock = new ManualClock(Date.now());
    const hook = await receiver();
    const dying = await instance(url, 'dev_a', clock, { sends: false });
    const job = await queued(dying, hook, clock.now());
    await dying.store.cancel(job.id, clock.now());
    // A claims it, as its sender would just before dying, and never sends nor releases it.
    expect(await dying.outbox.dueFor({ account: '', origin: new URL(hook.url()).origin }, clock.now(), [], 10)).toHaveLength(1);
    await dying.stop(true);

    const survivor = await instance(url, 'dev_b', clock);
    // B looks, finds the claim, and waits for its end on its timer.
    await until(() => clock.pendingTimers() === 1, 15_000, "the survivor's timer");
    expect(hook.received).toHaveLength(0);
    clock.advance(LEASE_MS);
    await hook.waitFor(1);
    await until(async () => (await sentBy(job.id)).length === 1);
    expect(await sentBy(job.id)).toEqual([{ device_id: 'dev_b', round: 1 }]);
    expect(await survivor.outbox.get(job.id)).toMatchObject({ state: 'delivered', round_attempts: 1 });
  });

  it('a redelivery asked for on one instance is sent by another, at once', async () => {
    const url = await freshDatabase();
    const clock = new ManualClock(Date.now());
    const hook = await receiver();
    const asking = await instance(url, 'dev_a', clock, { sends: false });
    await instance(url, 'dev_b', clock);
    const job = await queued(asking, hook, clock.now());
    await asking.store.cancel(job.id, clock.now());
    await hook.waitFor(1);
    await until(async () => (await asking.outbox.get(job.id))?.state === 'delivered');

    const deliveries = new WebhookDeliveries(asking.store, asking.outbox, clock);
    expect(await deliveries.redeliver(job.id)).toMatchObject({ state: 'pending', round: 2 });
    await hook.waitFor(2);
    await until(async () => (await sentBy(job.id)).length === 2);
    expect(await sentBy(job.id)).toEqual([
      { device_id: 'dev_b', round: 1 },
      { device_id: 'dev_b', round: 2 },
    ]);
  });

  it('at stop, hands back the deliveries it could not finish: another instance sends them without waiting for the lease', async () => {
    const url = await freshDatabase();
    const clock = new ManualClock(Date.now());
    let answer: () => void = () => {};
    const stuck = new Promise<void>((resolve) => (answer = resolve));
    const hook = await receiver(async () => {
      await stuck;
      return { status: 204 };
    });
    const leaving = await instance(url, 'dev_a', clock);
    const job = await queued(leaving, hook, clock.now());
    await leaving.store.cancel(job.id, clock.now());
    await until(() => leaving.sender!.inFlightCount() === 1);
    await leaving.stop();
    answer();
    await instance(url, 'dev_b', clock);
    await until(async () => (await sentBy(job.id)).length === 1, 15_000, 'sent by the other');
    expect(await sentBy(job.id)).toEqual([{ device_id: 'dev_b', round: 1 }]);
  });
});

describe('retention on PostgreSQL', () => {
  it('prunes content and clears old webhook logs in batches, with no space reclaim step', async () => {
    const url = await freshDatabase();
    const clock = new ManualClock();
    const hook = await receiver();
    const a = await instance(url, 'dev_a', clock, { sends: false });
    const ids = [];
    for (let i = 0; i < 5; i++) {
      const job = await queued(a, hook, clock.now());
      await a.store.cancel(job.id, clock.now());
      await a.outbox.record({ jobId: job.id, round: 1, startedAt: clock.now(), durationMs: 5, statusCode: 204, error: null });
      ids.push(job.id);
    }
    clock.advance((WEBHOOK_LOG_DAYS + 1) * DAY_MS);
    const errors: Error[] = [];
    const retention = new Retention(a.store, a.outbox, () => [{ account: null, days: 1 }], clock, (e) => errors.push(e), null, { intervalMs: DAY_MS, batch: 2, vacuumPages: 64 });
    const swept = new Promise((resolve) => retention.onSweep(resolve));
    retention.start();
    expect(await swept).toEqual({ pruned: 5, webhookLogsCleared: 5, pagesReclaimed: 0 });
    await retention.stop();
    expect(errors).toEqual([]);
    expect(await a.outbox.get(ids[0]!)).toBeUndefined();
    expect(await a.store.get(ids[0]!)).toMatchObject({ prompt: '', content_pruned_at: clock.now() });
  });
});

describe('chatbridge webhooks --database', () => {
  const command = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const env = { ...process.env };
      delete env.CHATBRIDGE_DATABASE_URL;
      execFile(process.execPath, [CLI, 'webhooks', ...args], { env }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }));
    });

  it("shows a job's delivery log from the shared database, and asks for a redelivery a running instance sends", async () => {
    const url = await freshDatabase();
    // The command's redelivery is due at its own (system) time.
    const clock = systemClock;
    const hook = await receiver();
    const running = await instance(url, 'dev_a', clock);
    const job = await queued(running, hook, clock.now());
    await running.store.cancel(job.id, clock.now());
    await until(async () => (await running.outbox.get(job.id))?.state === 'delivered');
    // Online as far as the command can tell: a device that beat just now.
    await admin!.query(`INSERT INTO devices (id, name, heartbeat_at, started_at) VALUES ('dev_a', 'a', $1, $1)`, [Date.now()]);

    const log = await command(['log', job.id, '--database', url]);
    expect(log).toMatchObject({ code: 0, stderr: '' });
    expect(log.stdout).toMatch(new RegExp(`^${job.id} → ${hook.url().replace(/[.?]/g, '\\$&')}: delivered\n`));
    expect(log.stdout).toMatch(/\n1 +\S+ +\d+ ms +HTTP 204\n$/);

    const redelivery = await command(['redeliver', job.id, '--database', url]);
    expect(redelivery).toEqual({ code: 0, stdout: `Redelivery of ${job.id} to ${hook.url()} asked for: the running server sends it within a second.\n`, stderr: '' });
    await hook.waitFor(2);
    await until(async () => (await sentBy(job.id)).length === 2);

    const none = await command(['log', 'job_none', '--database', url]);
    expect(none).toEqual({ code: 2, stdout: '', stderr: 'chatbridge: No job job_none.\n' });
  });
});
