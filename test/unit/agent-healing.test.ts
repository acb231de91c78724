/**
 * Agents that heal on their own: one that is set aside (error) or resting after a usage
 * limit looks at its page again on the back-off (15 s, 1, 5, 15, then every 30 min), a
 * rest first at the banner's reset time plus a minute, and turns ready when the page is;
 * one that looked logged out is looked at too, on a slower back-off (a minute, 5, 15, 30,
 * then every hour); a locked one never. On the injected clock, without sleeping.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomIds } from '../../main/core/ids.js';
import { AFTER_RESET_MS, AgentPool } from '../../main/queue/agent-pool.js';
import { SqliteAgentTable } from '../../main/storage/sqlite/agent-table.js';
import { openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import { LOGGED_OUT_DELAYS_MS, RECHECK_DELAYS_MS } from '../../main/queue/recheck-schedule.js';
import { tempDataDir } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { ScriptedAgent } from '../support/scripted-agent.js';

/** An agent with a page: `page` says what a look at it finds; every look is noted with its time. */
class PageAgent extends ScriptedAgent {
  page: 'ready' | 'limit' | 'broken' | 'logged-out' = 'ready';
  /** The site said the account is locked (BrowserAgent.awaitsPerson). */
  locked = false;
  readonly looks: number[] = [];
  constructor(
    id: string,
    private readonly clock: ManualClock,
  ) {
    super(id, 'claude');
  }
  async recheck(): Promise<boolean> {
    this.looks.push(this.clock.now());
    if (this.page === 'ready') this.setReadiness('idle');
    if (this.page === 'broken') this.setReadiness('error');
    if (this.page === 'logged-out') this.setReadiness('needs_login');
    return this.page === 'ready';
  }
  awaitsPerson(): boolean {
    return this.locked;
  }
}

const S = 1_000;
const MIN = 60_000;
/** Lets a look that just started (an async recheck) finish. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

let dir: string;
let db: Db;
let clock: ManualClock;
let pool: AgentPool;
beforeEach(() => {
  dir = tempDataDir();
  db = openDatabase(dir);
  clock = new ManualClock();
  pool = new AgentPool(new SqliteAgentTable(db), clock, randomIds);
});
afterEach(() => {
  pool.stop();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function attach(): PageAgent {
  const agent = new PageAgent(pool.create('claude', `Claude ${pool.list().length + 1}`).id, clock);
  pool.attach(agent);
  return agent;
}

/** Moves the clock by `ms` and lets the looks that fell due finish. */
async function advance(ms: number): Promise<void> {
  clock.advance(ms);
  await settle();
}

describe('agents that heal on their own', () => {
  it('looks again at an agent set aside on the back-off, says when, and makes it ready once its page is', async () => {
    const agent = attach();
    const t0 = clock.now();
    agent.page = 'broken';
    agent.setReadiness('error');
    expect(pool.nextCheckAt(agent.id)).toBe(t0 + 15 * S);

    // Still broken at each look: 15 s, then 1, 5, 15 and 30 minutes after each look.
    let at = t0;
    for (const delay of [...RECHECK_DELAYS_MS, RECHECK_DELAYS_MS.at(-1)!]) {
      await advance(delay - 1);
      expect(agent.looks.at(-1) ?? t0).toBeLessThan(at + delay);
      await advance(1);
      at += delay;
      expect(agent.looks.at(-1)).toBe(at);
    }
    expect(agent.looks.map((t, i) => t - (agent.looks[i - 1] ?? t0))).toEqual([15 * S, MIN, 5 * MIN, 15 * MIN, 30 * MIN, 30 * MIN]);
    expect(pool.nextCheckAt(agent.id)).toBe(at + 30 * MIN);

    agent.page = 'ready';
    await advance(30 * MIN);
    expect(pool.state(agent.id)).toBe('idle');
    expect(pool.isReady(agent.id)).toBe(true);
    expect(pool.nextCheckAt(agent.id)).toBeNull();
    const looked = agent.looks.length;
    await advance(3 * 60 * MIN);
    expect(agent.looks).toHaveLength(looked);
  });

  it('starts the back-off afresh after a long healthy spell, and goes on with it for an agent that falls ill again at once', async () => {
    const agent = attach();
    agent.page = 'broken';
    agent.setReadiness('error');
    await advance(15 * S); // looks, still in error
    agent.page = 'ready';
    await advance(MIN); // second look: healed
    expect(pool.state(agent.id)).toBe('idle');

    // Ill again a minute later: a page that passes a look but fails jobs is not looked at every 15 s.
    await advance(MIN);
    agent.setReadiness('error');
    expect(pool.nextCheckAt(agent.id)! - clock.now()).toBe(5 * MIN);
    await advance(5 * MIN);
    expect(pool.state(agent.id)).toBe('idle');

    // Ill again after an hour of health: 15 s again.
    await advance(60 * MIN);
    agent.setReadiness('error');
    expect(pool.nextCheckAt(agent.id)! - clock.now()).toBe(15 * S);

    // Well by itself (its browser started, a person logged in): no relapse to remember.
    agent.setReadiness('idle');
    await advance(S);
    agent.setReadiness('error');
    expect(pool.nextCheckAt(agent.id)! - clock.now()).toBe(15 * S);
  });

  it('looks at a resting agent a minute after the reset time the banner gave, then on the back-off until the limit is gone', async () => {
    const agent = attach();
    const until = clock.now() + 2 * 60 * MIN;
    agent.page = 'limit';
    pool.coolDown(agent.id, until);
    expect(pool.state(agent.id)).toBe('resting');
    expect(pool.nextCheckAt(agent.id)).toBe(until + AFTER_RESET_MS);

    await advance(until + AFTER_RESET_MS - 1 - clock.now());
    expect(agent.looks).toEqual([]);
    expect(pool.state(agent.id)).toBe('resting');
    await advance(1);
    expect(agent.looks).toEqual([until + AFTER_RESET_MS]);
    // The banner still shows: the rest goes on, looked at again on the back-off.
    expect(pool.state(agent.id)).toBe('resting');
    expect(pool.nextCheckAt(agent.id)).toBe(until + AFTER_RESET_MS + 15 * S);
    await advance(15 * S);
    expect(pool.nextCheckAt(agent.id)).toBe(until + AFTER_RESET_MS + 15 * S + MIN);

    agent.page = 'ready';
    await advance(MIN);
    expect(pool.state(agent.id)).toBe('idle');
    expect(pool.cooldownUntil(agent.id)).toBeNull();
    expect(pool.nextCheckAt(agent.id)).toBeNull();
  });

  it('a new limit brings its own reset time', async () => {
    const agent = attach();
    agent.page = 'limit';
    pool.coolDown(agent.id, clock.now() + 10 * MIN);
    await advance(11 * MIN); // looked, still limited: back-off from here
    const later = clock.now() + 60 * MIN;
    pool.coolDown(agent.id, later);
    expect(pool.nextCheckAt(agent.id)).toBe(later + AFTER_RESET_MS);
  });

  it('looks again at an agent that looked logged out, on its slower back-off, and makes it ready once its page is', async () => {
    const agent = attach();
    const t0 = clock.now();
    agent.page = 'logged-out';
    agent.setReadiness('needs_login');
    expect(pool.nextCheckAt(agent.id)).toBe(t0 + MIN);
    for (const delay of [...LOGGED_OUT_DELAYS_MS, 60 * MIN]) await advance(delay);
    expect(agent.looks.map((t, i) => t - (agent.looks[i - 1] ?? t0))).toEqual([...LOGGED_OUT_DELAYS_MS, 60 * MIN]);
    expect(pool.state(agent.id)).toBe('needs_login');

    // The wall was the site's mistake, or the session came back: ready at the next look.
    agent.page = 'ready';
    await advance(60 * MIN);
    expect(pool.state(agent.id)).toBe('idle');
    expect(pool.nextCheckAt(agent.id)).toBeNull();
  });

  it('never looks at a locked agent (its person checks it), nor at a paused or busy one', async () => {
    const agent = attach();
    agent.locked = true;
    agent.setReadiness('error');
    expect(pool.nextCheckAt(agent.id)).toBeNull();
    await advance(24 * 60 * MIN);
    expect(agent.looks).toEqual([]);
    agent.locked = false;

    agent.setReadiness('error');
    pool.setEnabled(agent.id, false);
    expect(pool.nextCheckAt(agent.id)).toBeNull();
    pool.setEnabled(agent.id, true);
    pool.setBusy(agent.id, true);
    await advance(60 * MIN);
    expect(agent.looks).toEqual([]);
    pool.setBusy(agent.id, false);
    expect(pool.nextCheckAt(agent.id)).toBe(clock.now() + 15 * S);
  });

  it('goes through the runtime control once attached, and a look it refuses (a login under way) is tried again later', async () => {
    const agent = attach();
    const asked: string[] = [];
    pool.lookThrough(async (id) => {
      asked.push(id);
      throw new Error('A login is under way in this agent\'s page');
    });
    agent.setReadiness('error');
    await advance(15 * S);
    expect(asked).toEqual([agent.id]);
    expect(agent.looks).toEqual([]);
    expect(pool.nextCheckAt(agent.id)).toBe(clock.now() + MIN);
  });

  it('an agent with no page to look at rests exactly until the reset time', async () => {
    const plain = new ScriptedAgent(pool.create('gemini', 'Gemini 1').id, 'gemini');
    pool.attach(plain);
    const until = clock.now() + 30 * MIN;
    pool.coolDown(plain.id, until);
    await advance(30 * MIN - 1);
    expect(pool.state(plain.id)).toBe('resting');
    await advance(1);
    expect(pool.state(plain.id)).toBe('idle');
    plain.setReadiness('error'); // nothing to look at: no schedule
    expect(pool.nextCheckAt(plain.id)).toBeNull();
  });

  it('a removed agent is looked at no more', async () => {
    const agent = attach();
    agent.setReadiness('error');
    pool.remove(agent.id);
    await advance(60 * MIN);
    expect(agent.looks).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
  });
});
