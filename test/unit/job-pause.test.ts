/**
 * The pause between an agent's jobs, a guard against bans: after each job the agent takes
 * no other for its least pause plus a random part of up to half of it; it stays `idle`
 * (not `resting`, which is a usage limit), and says until when. The global setting and an
 * agent's own; on the injected clock.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { noDefaultPauseIn, simulationDir } from '../../main/core/data-dir.js';
import { randomIds, type IdGenerator } from '../../main/core/ids.js';
import { AgentPool, PAUSE_JITTER } from '../../main/queue/agent-pool.js';
import { SqliteAgentTable } from '../../main/storage/sqlite/agent-table.js';
import { openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import { DEFAULT_PAUSE_MS } from '../../main/settings/settings-store.js';
import { startTestService, tempDataDir, type TestService } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { ScriptedAgent } from '../support/scripted-agent.js';
import { until } from '../support/until.js';
import { SqliteSettingsStore } from '../../main/storage/sqlite/settings-store.js';

let dir: string;
let db: Db;
let clock: ManualClock;
/** What the next random pick returns, as a share of its range: 0 the least, 1 the most. */
let draw = 0;
const ids: IdGenerator = { ...randomIds, pick: (n) => Math.round(draw * (n - 1)) };
beforeEach(() => {
  dir = tempDataDir();
  db = openDatabase(dir);
  clock = new ManualClock();
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function poolWithAgent(): { pool: AgentPool; id: string } {
  const pool = new AgentPool(new SqliteAgentTable(db), clock, ids);
  const id = pool.create('claude', 'Claude 1').id;
  pool.attach(new ScriptedAgent(id, 'claude'));
  return { pool, id };
}

describe('the pause between jobs', () => {
  it('holds the agent back for its pause plus jitter within [P, 1.5 P], idle and saying until when', () => {
    const { pool, id } = poolWithAgent();
    for (const [share, expected] of [
      [0, 20_000],
      [1, 20_000 * (1 + PAUSE_JITTER)],
      [0.5, 25_000],
    ] as const) {
      draw = share;
      pool.setBusy(id, true);
      pool.jobDone(id, 20_000);
      expect(pool.pauseUntil(id)).toBe(clock.now() + expected);
      expect(pool.state(id)).toBe('idle'); // not `resting`: nothing is wrong with the agent
      expect(pool.isReady(id)).toBe(false);
      clock.advance(expected - 1);
      expect(pool.isReady(id)).toBe(false);
      clock.advance(1);
      expect(pool.isReady(id)).toBe(true);
      expect(pool.pauseUntil(id)).toBeNull();
    }
  });

  it("an agent's own pause wins over the global one; 0 means none", () => {
    const { pool, id } = poolWithAgent();
    draw = 0;
    pool.setPause(id, 3_000);
    pool.jobDone(id, 20_000);
    expect(pool.pauseUntil(id)).toBe(clock.now() + 3_000);
    clock.advance(3_000);
    pool.setPause(id, 0);
    draw = 1;
    pool.jobDone(id, 20_000);
    expect(pool.isReady(id)).toBe(true);
    pool.setPause(id, null);
    pool.jobDone(id, 0);
    expect(pool.isReady(id)).toBe(true);
  });

  it('is on by default in a real install (10 s); the test suite runs with 0', async () => {
    expect(DEFAULT_PAUSE_MS).toBe(10_000);
    expect(process.env.CHATBRIDGE_PAUSE_MS).toBe('0');
    const settings = new SqliteSettingsStore(db);
    expect(settings.get().pauseMs).toBe(0);
    await settings.setPauseMs(15_000);
    expect(new SqliteSettingsStore(db).get().pauseMs).toBe(15_000);
    await expect(settings.setPauseMs(-1)).rejects.toThrow(RangeError);
  });

  it('is none by default in a simulation\'s data dir (serve --simulate), where a pause set still holds', async () => {
    const saved = process.env.CHATBRIDGE_PAUSE_MS;
    try {
      // As in a real install: no CHATBRIDGE_PAUSE_MS.
      delete process.env.CHATBRIDGE_PAUSE_MS;
      expect(new SqliteSettingsStore(db).get().pauseMs).toBe(DEFAULT_PAUSE_MS);
      noDefaultPauseIn(dir); // not a simulation's data dir: the default stays
      expect(new SqliteSettingsStore(db).get().pauseMs).toBe(DEFAULT_PAUSE_MS);
      noDefaultPauseIn(simulationDir(dir));
      expect(new SqliteSettingsStore(db).get().pauseMs).toBe(0);
      await new SqliteSettingsStore(db).setPauseMs(12_000);
      expect(new SqliteSettingsStore(db).get().pauseMs).toBe(12_000);
    } finally {
      process.env.CHATBRIDGE_PAUSE_MS = saved;
    }
  });
});

describe('the scheduler and the pause', () => {
  let t: TestService;
  afterEach(async () => t?.stop());

  it('gives a pausing agent no job until its pause is over, and a waiting job says why', async () => {
    const clock = new ManualClock();
    t = await startTestService({ clock, agents: { claude: 1 } });
    await t.driver.settings.setPauseMs(10_000);
    const agent = t.agents[0]!;
    const first = await t.api('POST', '/v1/completions', { body: { prompt: 'one', provider: 'claude' } });
    expect(first.status).toBe(200);
    const second = await t.api('POST', '/v1/completions', { body: { prompt: 'two', provider: 'claude', wait: false, callback_url: 'https://127.0.0.1:9/hook' } });
    expect(second.status).toBe(202);

    const pauseUntil = t.driver.agents.pauseUntil(agent.id)!;
    expect(pauseUntil - clock.now()).toBeGreaterThanOrEqual(10_000);
    expect(pauseUntil - clock.now()).toBeLessThanOrEqual(15_000);
    const view = (await t.service.admin.state.read()).agents[0]!;
    expect(view).toMatchObject({ state: 'idle', cooldown_until: null, pause_until: expect.any(String) });
    expect((await t.service.admin.jobs.detail(second.body.id)).waiting_because).toMatch(/^every Claude agent is pausing between jobs \(a guard against bans\), until /);

    clock.advance(pauseUntil - clock.now() - 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(agent.runs.map((r) => r.prompt)).toEqual(['one']);
    clock.advance(1);
    await until(() => agent.runs.length === 2, 15_000, 'the second job to start after the pause');
    expect(agent.runs[1]!.prompt).toBe('two');
  });
});
