/**
 * What the service logs about agents: transitions only (first when its live agent is
 * attached), `busy` counted as `idle` so everyday work is not logged, the agent's reason
 * with needs_login and error, and warnings for those two.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomIds } from '../../main/core/ids.js';
import { LogBook } from '../../main/logs/log-book.js';
import { logAgentChanges } from '../../main/logs/log-feeds.js';
import { AgentPool } from '../../main/queue/agent-pool.js';
import { SqliteAgentTable } from '../../main/storage/sqlite/agent-table.js';
import { openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import { tempDataDir } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { ScriptedAgent } from '../support/scripted-agent.js';

class ExplainingAgent extends ScriptedAgent {
  why = '';
  detail(): string {
    return this.why;
  }
}

let dir: string;
let db: Db;
beforeEach(() => {
  dir = tempDataDir();
  db = openDatabase(dir);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('agent log', () => {
  it('logs each transition once, in plain words, and nothing for work or renames', () => {
    const clock = new ManualClock();
    const pool = new AgentPool(new SqliteAgentTable(db), clock, randomIds);
    const log = new LogBook(clock);
    const lines = () => log.recent().map((e) => `${e.level} ${e.source} ${e.message}`);
    const claude = pool.create('claude', 'Claude 1');
    const stop = logAgentChanges(pool, log);
    expect(lines()).toEqual([]); // a row without a live agent is not news

    const agent = new ExplainingAgent(claude.id, 'claude');
    pool.attach(agent);
    pool.setBusy(claude.id, true);
    pool.setCap(claude.id, 5); // a change heard while busy
    expect(pool.state(claude.id)).toBe('busy');
    pool.setBusy(claude.id, false);
    pool.rename(claude.id, 'Claude, work');
    expect(lines()).toEqual(['info agent Claude 1: started, idle']);

    agent.why = '  Log in to Claude again.  ';
    agent.setReadiness('needs_login');
    agent.setReadiness('needs_login');
    pool.setEnabled(claude.id, false);
    pool.setEnabled(claude.id, true);
    agent.why = 'x'.repeat(500);
    agent.setReadiness('error');
    expect(lines()).toEqual([
      'info agent Claude 1: started, idle',
      'warn agent Claude, work: idle → needs_login (Log in to Claude again.)',
      'info agent Claude, work: needs_login → paused',
      'warn agent Claude, work: paused → needs_login (Log in to Claude again.)',
      `warn agent Claude, work: needs_login → error (${'x'.repeat(200)})`,
    ]);

    stop();
    agent.setReadiness('idle');
    expect(lines()).toHaveLength(5);
  });

  it("says when an agent's proxy changes, without its password", () => {
    const clock = new ManualClock();
    const pool = new AgentPool(new SqliteAgentTable(db), clock, randomIds);
    const log = new LogBook(clock);
    const gpt = pool.create('chatgpt', 'ChatGPT 1');
    logAgentChanges(pool, log);
    pool.setProxy(gpt.id, 'http://ann:s3cret@proxy.example:3128');
    pool.setProxy(gpt.id, 'http://ann:s3cret@proxy.example:3128');
    pool.setProxy(gpt.id, null);
    const lines = log.recent().map((e) => e.message);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^ChatGPT 1: now goes through http:\/\/a.*@proxy\.example:3128$/);
    expect(lines[1]).toBe('ChatGPT 1: now connects directly');
    expect(lines.join('\n')).not.toContain('s3cret');
  });

  it('says nothing while a browser agent first opens (it reports error until then), then its first real state', () => {
    const clock = new ManualClock();
    const pool = new AgentPool(new SqliteAgentTable(db), clock, randomIds);
    const log = new LogBook(clock);
    const gpt = pool.create('chatgpt', 'ChatGPT 1');
    logAgentChanges(pool, log);
    const agent = new ExplainingAgent(gpt.id, 'chatgpt');
    agent.why = 'starting';
    agent.setReadiness('error');
    pool.attach(agent);
    // Other changes heard while it still opens (its own notices, other agents, caps) are not news either.
    agent.setReadiness('error');
    pool.setCap(gpt.id, 3);
    expect(log.recent()).toEqual([]);
    agent.why = 'log in to the provider again';
    agent.setReadiness('needs_login');
    agent.setReadiness('idle');
    expect(log.recent().map((e) => `${e.level} ${e.message}`)).toEqual([
      // Not logged in yet in this run (an account being paired, the simulator signing in): not a warning.
      'info ChatGPT 1: started, needs_login (log in to the provider again)',
      'info ChatGPT 1: needs_login → idle',
    ]);
    agent.setReadiness('needs_login');
    expect(log.recent().at(-1)).toMatchObject({ level: 'warn', message: 'ChatGPT 1: idle → needs_login (log in to the provider again)' });
  });

  it('logs an agent resting after a usage limit, and back', () => {
    const clock = new ManualClock();
    const pool = new AgentPool(new SqliteAgentTable(db), clock, randomIds);
    const log = new LogBook(clock);
    const gpt = pool.create('chatgpt', 'ChatGPT 1');
    logAgentChanges(pool, log);
    pool.attach(new ExplainingAgent(gpt.id, 'chatgpt'));
    pool.coolDown(gpt.id, clock.now() + 60_000);
    expect(pool.state(gpt.id)).toBe('resting');
    expect(pool.isReady(gpt.id)).toBe(false);
    clock.advance(60_000);
    expect(pool.state(gpt.id)).toBe('idle');
    expect(log.recent().map((e) => `${e.level} ${e.message}`)).toEqual([
      'info ChatGPT 1: started, idle',
      'info ChatGPT 1: idle → resting',
      'info ChatGPT 1: resting → idle',
    ]);
  });
});
