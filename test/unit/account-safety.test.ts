/**
 * What keeps an account safe between jobs, on the injected clock: a rest after a usage limit
 * holds across a restart (the rows keep it), and an agent whose account is locked gets no
 * look of its own (only a person's check), as one that needs a login.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomIds } from '../../main/core/ids.js';
import { AFTER_RESET_MS, AgentPool } from '../../main/queue/agent-pool.js';
import { SqliteAgentTable } from '../../main/storage/sqlite/agent-table.js';
import { openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import { tempDataDir } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { ScriptedAgent } from '../support/scripted-agent.js';

class LockableAgent extends ScriptedAgent {
  locked = false;
  looks = 0;
  awaitsPerson(): boolean {
    return this.locked;
  }
  async recheck(): Promise<boolean> {
    this.looks++;
    return false;
  }
}

const MIN = 60_000;
let dir: string;
let db: Db;
let clock: ManualClock;
let pools: AgentPool[];
beforeEach(() => {
  dir = tempDataDir();
  db = openDatabase(dir);
  clock = new ManualClock();
  pools = [];
});
afterEach(() => {
  for (const p of pools) p.stop();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const newPool = () => {
  const pool = new AgentPool(new SqliteAgentTable(db), clock, randomIds);
  pools.push(pool);
  return pool;
};

describe('a rest after a usage limit', () => {
  it('holds in a pool started afresh on the same data, with its reset time, until it ends', () => {
    const before = newPool();
    const id = before.create('chatgpt', 'ChatGPT 1').id;
    before.attach(new LockableAgent(id, 'chatgpt'));
    const until = clock.now() + 20 * MIN;
    before.coolDown(id, until);
    before.stop();

    // The app restarts: a new pool, a new live agent for the same row.
    const after = newPool();
    after.attach(new LockableAgent(id, 'chatgpt'));
    expect(after.state(id)).toBe('resting');
    expect(after.cooldownUntil(id)).toBe(until);
    expect(after.nextCheckAt(id)).toBe(until + AFTER_RESET_MS);
    // The row is still what the API and the command line read: no rest field leaks into it.
    expect(Object.keys(after.get(id)!)).not.toContain('rest_until');

    after.endCooldown(id);
    const again = newPool();
    again.attach(new LockableAgent(id, 'chatgpt'));
    expect(again.state(id)).toBe('idle');
  });

  it('is not restored once its time has passed while the app was down', () => {
    const before = newPool();
    const id = before.create('claude', 'Claude 1').id;
    before.coolDown(id, clock.now() + 5 * MIN);
    clock.advance(6 * MIN);
    const after = newPool();
    after.attach(new LockableAgent(id, 'claude'));
    expect(after.cooldownUntil(id)).toBeNull();
    expect(after.state(id)).toBe('idle');
  });
});

describe('a locked account', () => {
  it('gets no look of its own while it awaits a person; a set-aside agent that does not, does', () => {
    const pool = newPool();
    const locked = new LockableAgent(pool.create('chatgpt', 'ChatGPT 1').id, 'chatgpt');
    const broken = new LockableAgent(pool.create('chatgpt', 'ChatGPT 2').id, 'chatgpt');
    pool.attach(locked);
    pool.attach(broken);
    locked.locked = true;
    locked.setReadiness('error');
    broken.setReadiness('error');
    expect(pool.nextCheckAt(locked.id)).toBeNull();
    expect(pool.nextCheckAt(broken.id)).toBe(clock.now() + 15_000);
    expect(pool.isReady(locked.id)).toBe(false);
  });
});
