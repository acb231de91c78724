/**
 * The ClusterAgents contract on PostgreSQL, and what only devices sharing a database show:
 * one device's agents seen by another, a dead device's agents no longer counted within the
 * lease, and the 503s of `wait: false` decided on the whole cluster.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { profileNamed } from '../../main/contract/profile.js';
import { completionDefaults, type CompletionRequest } from '../../main/contract/schemas.js';
import { Completions } from '../../main/service/completions.js';
import type { ApiError } from '../../main/core/errors.js';
import { randomIds } from '../../main/core/ids.js';
import type { Provider } from '../../main/core/providers.js';
import { AgentPool } from '../../main/queue/agent-pool.js';
import { SqliteAgentTable } from '../../main/storage/sqlite/agent-table.js';
import type { ClusterAgents } from '../../main/queue/cluster-agents.js';
import { openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import { HourlyUsage } from '../../main/queue/hourly-usage.js';
import { PgClusterAgents } from '../../main/storage/postgres/cluster-agents.js';
import { connect } from '../../main/storage/postgres/connect.js';
import { DEFAULT_LEASE, Device } from '../../main/storage/postgres/devices.js';
import { PgJobStore } from '../../main/storage/postgres/job-store.js';
import { announceTableChange, TableChanges } from '../../main/storage/postgres/table-changes.js';
import { RotationPicker } from '../../main/queue/rotation.js';
import { Scheduler } from '../../main/queue/scheduler.js';
import { StatusReport } from '../../main/service/status-report.js';
import { ManualClock } from '../support/manual-clock.js';
import { T0 } from '../support/new-job.js';
import { ScriptedAgent } from '../support/scripted-agent.js';
import { until } from '../support/until.js';
import { clusterAgentsContract, type AgentsUnderTest } from './cluster-agents-contract.js';
import { startMigratedCluster, type MigratedCluster } from './migrated-cluster.js';
import { SqliteSettingsStore } from '../../main/storage/sqlite/settings-store.js';

const { heartbeatMs, leaseMs, sweepMs } = DEFAULT_LEASE;

let postgres: MigratedCluster;
beforeAll(async () => {
  postgres = await startMigratedCluster();
});
afterAll(() => postgres?.cluster.stop());

/** An instance: its data dir's pool of agents, and its device on the shared database. */
interface Instance {
  id: string;
  db: Db;
  pool: AgentPool;
  /** Its connections to the shared database. */
  shared: pg.Pool;
  store: PgJobStore;
  device: Device;
  changes: TableChanges;
  agents: PgClusterAgents;
  errors: Error[];
  close(): Promise<void>;
}

async function instance(url: string, id: string, name: string, clock: ManualClock, baseUrl: string | null = `http://${name}.lan:8787`): Promise<Instance> {
  const dir = mkdtempSync(join(tmpdir(), 'chatbridge-device-'));
  const db = openDatabase(dir);
  const pool = new AgentPool(new SqliteAgentTable(db), clock, randomIds);
  const shared = await connect(url);
  const store = new PgJobStore(shared, id);
  const errors: Error[] = [];
  const device = new Device(shared, store, { name, baseUrl }, clock, (e) => errors.push(e));
  await device.start();
  const changes = new TableChanges(shared);
  await changes.listen();
  const agents = new PgClusterAgents(shared, changes, pool, { id, name, baseUrl: () => baseUrl }, clock, (e) => errors.push(e));
  await agents.start();
  return {
    id,
    db,
    pool,
    shared,
    store,
    device,
    changes,
    agents,
    errors,
    async close() {
      device.stop();
      await agents.close();
      changes.close();
      pool.stop();
      await store.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function addAgent(on: Instance, provider: Provider, name: string): string {
  const record = on.pool.create(provider, name);
  on.pool.attach(new ScriptedAgent(record.id, provider));
  return record.id;
}

/** Resolves once `ok` holds, checked now and at each change `agents` announces (never a sleep). */
function when(agents: ClusterAgents, ok: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (ok()) return resolve();
    const stop = agents.onChange(() => {
      if (!ok()) return;
      stop();
      resolve();
    });
  });
}

/** Moves the clock on in half-second steps, letting each live instance's beats and reads finish, until `done`. */
async function run(clock: ManualClock, ms: number, live: Instance[], done: () => boolean = () => false): Promise<void> {
  for (let spent = 0; spent < ms && !done(); spent += 500) {
    clock.advance(500);
    await Promise.all(live.flatMap((i) => [i.device.settled(), i.agents.settled()]));
  }
}

const opened: Instance[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((i) => i.close()));
});

/** Two instances on a fresh database: A (laptop) runs agents, B (desktop) answers. */
async function twoDevices(clock: ManualClock): Promise<{ url: string; a: Instance; b: Instance }> {
  const url = await postgres.newDatabase();
  const a = await instance(url, 'dev_a', 'laptop', clock);
  const b = await instance(url, 'dev_b', 'desktop', clock);
  opened.push(a, b);
  return { url, a, b };
}

/** The contract's database, emptied before each of its tests. */
let contractDb: { url: string; admin: pg.Pool } | undefined;
afterAll(() => contractDb?.admin.end());

clusterAgentsContract('PostgreSQL', async (): Promise<AgentsUnderTest> => {
  if (!contractDb) {
    const url = await postgres.newDatabase();
    contractDb = { url, admin: await connect(url, { max: 1 }) };
  }
  await contractDb.admin.query('TRUNCATE devices, device_agents');
  const clock = new ManualClock(T0);
  const i = await instance(contractDb.url, 'dev_self', 'laptop', clock);
  return {
    pool: i.pool,
    agents: i.agents,
    self: { id: 'dev_self', name: 'laptop', base_url: 'http://laptop.lan:8787' },
    now: () => clock.now(),
    async close() {
      expect(i.errors).toEqual([]);
      await i.close();
    },
  };
});

describe('the agents of devices sharing one PostgreSQL', () => {
  it("shows each device the other's agents and their changes, as the other's", async () => {
    const clock = new ManualClock(T0);
    const { a, b } = await twoDevices(clock);
    const gpt = addAgent(a, 'chatgpt', 'work');
    const claude = addAgent(a, 'claude', 'home');
    await when(b.agents, () => b.agents.online().length === 2);
    expect(b.agents.get(gpt)).toEqual(a.agents.get(gpt));
    expect(b.agents.get(gpt)).toMatchObject({ device_id: 'dev_a', provider: 'chatgpt', name: 'work', state: 'idle', ready: true });
    expect(b.agents.devices()).toEqual([
      { id: 'dev_b', name: 'desktop', base_url: 'http://desktop.lan:8787', online: true, agents: [] },
      { id: 'dev_a', name: 'laptop', base_url: 'http://laptop.lan:8787', online: true, agents: [b.agents.get(gpt), b.agents.get(claude)] },
    ]);

    // Busy (which frees no capacity, so the pool's onChange is quiet), then resting.
    a.pool.setBusy(gpt, true);
    await when(b.agents, () => b.agents.get(gpt)!.state === 'busy');
    expect(b.agents.get(gpt)!.ready).toBe(false);
    a.pool.coolDown(claude, T0 + 3_600_000);
    await when(b.agents, () => b.agents.get(claude)!.state === 'resting');
    expect(b.agents.get(claude)!.cooldown_until).toBe(T0 + 3_600_000);

    // B's own agent is B's; A sees it too. A removed agent goes everywhere.
    const qwen = addAgent(b, 'qwen', 'spare');
    await when(a.agents, () => a.agents.get(qwen) !== undefined);
    expect(a.agents.get(qwen)!.device_id).toBe('dev_b');
    a.pool.remove(claude);
    await when(b.agents, () => b.agents.get(claude) === undefined);
    expect(b.agents.online().map((x) => x.name).sort()).toEqual(['spare', 'work']);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('writes a burst of changes to the pool as one publication', async () => {
    const clock = new ManualClock(T0);
    const { url, a, b } = await twoDevices(clock);
    const ids = ['one', 'two', 'three', 'four', 'five'].map((n) => addAgent(a, 'gemini', n));
    await when(b.agents, () => b.agents.online().length === 5);
    const watcher = await connect(url, { max: 2 });
    const notices = new TableChanges(watcher);
    await notices.listen();
    let published = 0;
    let marked = false;
    notices.on('device_agents', () => published++);
    notices.on('marker', () => (marked = true));
    try {
      for (const id of ids) a.pool.rename(id, `renamed ${id}`);
      await when(b.agents, () => b.agents.online().every((x) => x.name.startsWith('renamed')));
      // Notices reach a listener in commit order: once a later commit's is heard, every
      // publication of the burst (all committed before B saw the last rename) has been too.
      await announceTableChange(watcher, 'marker');
      await until(() => marked, 15_000, 'the marker notice');
      expect(published).toBe(1);
    } finally {
      notices.close();
      await watcher.end();
    }
  });

  it("stops counting a dead device's agents within the lease, and tells its listeners", async () => {
    const clock = new ManualClock(T0);
    const { a, b } = await twoDevices(clock);
    const gpt = addAgent(a, 'chatgpt', 'work');
    addAgent(a, 'chatgpt', 'spare');
    await when(b.agents, () => b.agents.online().length === 2);
    const settings = new SqliteSettingsStore(b.db);
    const usage = new HourlyUsage(clock);
    const report = new StatusReport(b.store, b.agents, usage, settings, profileNamed('personal').timestamp, () => []);

    // Alive, A's agents count however long it runs.
    await run(clock, 30_000, [a, b]);
    expect(b.agents.online()).toHaveLength(2);
    expect((await report.status(null)).agents).toEqual({ idle: 2, busy: 0, total: 2 });

    // A dies: no more beats, nothing said.
    a.device.stop();
    const diedAt = clock.now();
    const { rows } = await b.shared.query<{ heartbeat_at: number }>(`SELECT heartbeat_at FROM devices WHERE id = 'dev_a'`);
    const lastBeat = rows[0]!.heartbeat_at;
    expect(diedAt - lastBeat).toBeLessThan(heartbeatMs);
    let heardAt: number | undefined;
    b.agents.onChange(() => (heardAt ??= clock.now()));
    await run(clock, 2 * leaseMs, [b], () => b.agents.online().length === 0);
    const goneAt = clock.now();
    await run(clock, 2 * sweepMs, [b], () => heardAt !== undefined);
    console.log(`dead device's agents stopped counting ${goneAt - lastBeat} ms (clock) after its last beat, ${goneAt - diedAt} ms after its death; listeners told ${heardAt! - goneAt} ms later`);
    // Counted until a lease has passed since its last beat, and no longer one clock step (500 ms) later.
    expect(goneAt - lastBeat).toBeGreaterThan(leaseMs);
    expect(goneAt - lastBeat).toBeLessThanOrEqual(leaseMs + 500);
    expect(heardAt! - goneAt).toBeLessThanOrEqual(sweepMs);

    // Listed, offline, as last published; counted nowhere; none ready.
    expect(b.agents.get(gpt)).toMatchObject({ device_id: 'dev_a', state: 'idle', ready: false });
    const status = await report.status(null);
    expect(status.agents).toEqual({ idle: 0, busy: 0, total: 0 });
    expect(status.providers.chatgpt).toMatchObject({ agents_idle: 0, agents_total: 0 });
    expect(status.devices.map((d) => [d.name, d.base_url, d.online, d.agents.map((x) => x.name)])).toEqual([
      ['desktop', 'http://desktop.lan:8787', true, []],
      ['laptop', 'http://laptop.lan:8787', false, ['work', 'spare']],
    ]);
    expect(report.models(null).data).toEqual([]);

    // It comes back: counted again at B's next read.
    await a.device.start();
    await run(clock, sweepMs, [a, b]);
    expect(b.agents.online()).toHaveLength(2);
  });

  it('counts a device that left cleanly offline at the next read, not a lease later', async () => {
    const clock = new ManualClock(T0);
    const { a, b } = await twoDevices(clock);
    addAgent(a, 'perplexity', 'p');
    await when(b.agents, () => b.agents.online().length === 1);
    await a.device.leave();
    await run(clock, sweepMs, [b]);
    expect(b.agents.online()).toEqual([]);
    expect(b.agents.devices().map((d) => [d.name, d.online])).toEqual([
      ['desktop', true],
      ['laptop', false],
    ]);
  });

  it('decides the 503s of wait:false on the whole cluster: NO_AGENT_AVAILABLE, then NO_DEVICE_ONLINE once the device with agents dies', async () => {
    const clock = new ManualClock(T0);
    const { a, b } = await twoDevices(clock);
    const gpt = addAgent(a, 'chatgpt', 'work');
    await when(b.agents, () => b.agents.online().length === 1);
    // B answers the API and runs no agent of its own.
    const settings = new SqliteSettingsStore(b.db);
    const usage = new HourlyUsage(clock);
    const scheduler = new Scheduler(b.store, b.pool, usage, new RotationPicker(usage, randomIds), () => settings.get(), clock, randomIds, (error) => {
      throw error;
    });
    const completions = new Completions(b.store, scheduler, b.agents, settings, profileNamed('personal'), clock, randomIds, () => [], () => ({ types: null, maxFileBytes: null, maxFiles: null }));
    const submit = (over: Partial<CompletionRequest>) =>
      completions.submit({
        body: { ...completionDefaults(), prompt: 'p', wait: false, ...over },
        idempotencyKey: undefined,
        path: '/v1/completions',
        rawBody: {},
        apiKeyId: 'key_test',
        accountId: null,
      });
    const refusal = (over: Partial<CompletionRequest>) => submit(over).then(
      () => 'accepted',
      (e: ApiError) => e.code,
    );
    try {
      // A's idle agent can start it: accepted at B, by provider or by A's agent id.
      expect(await refusal({ provider: 'chatgpt' })).toBe('accepted');
      expect(await refusal({ agent_id: gpt })).toBe('accepted');
      expect(await refusal({ provider: 'claude' })).toBe('NO_AGENT_AVAILABLE');
      a.pool.setBusy(gpt, true);
      await when(b.agents, () => !b.agents.get(gpt)!.ready);
      expect(await refusal({ provider: 'chatgpt' })).toBe('NO_AGENT_AVAILABLE');
      a.pool.setBusy(gpt, false);
      await when(b.agents, () => b.agents.get(gpt)!.ready);

      // A dies: no device with agents is online.
      a.device.stop();
      await run(clock, 2 * leaseMs, [b], () => b.agents.online().length === 0);
      expect(await refusal({})).toBe('NO_DEVICE_ONLINE');
      expect(await refusal({ provider: 'chatgpt' })).toBe('NO_DEVICE_ONLINE');
      // A job pinned to A's agent is still one B knows: it waits for A, and says why.
      const { job } = await submit({ agent_id: gpt, callback_url: 'https://hooks.example/done' });
      expect(job).toMatchObject({ status: 'queued', req_agent_id: gpt, req_provider: 'chatgpt' });
      expect(completions.waitReason(job)!.text).toBe('the device of its agent work is offline (laptop)');
    } finally {
      await scheduler.stop();
    }
  });
});
