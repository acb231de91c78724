/**
 * What every ClusterAgents must do with the agents of its own device, whatever else it
 * knows: run by local-agents.test.ts (the desktop) and pg-cluster-agents.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentPool } from '../../main/queue/agent-pool.js';
import type { ClusterAgents } from '../../main/queue/cluster-agents.js';
import type { Provider } from '../../main/core/providers.js';
import { ScriptedAgent } from '../support/scripted-agent.js';

export interface AgentsUnderTest {
  /** This device's pool, where the test adds and changes agents. */
  pool: AgentPool;
  agents: ClusterAgents;
  /** This device as the implementation must report it. */
  self: { id: string; name: string; base_url: string | null };
  /** The manual clock both run on. */
  now(): number;
  close(): Promise<void>;
}

export function clusterAgentsContract(name: string, make: () => Promise<AgentsUnderTest>): void {
  describe(`ClusterAgents contract: ${name}`, () => {
    let t: AgentsUnderTest | undefined;
    afterEach(async () => {
      await t?.close();
      t = undefined;
    });

    const add = (provider: Provider, name: string) => {
      const record = t!.pool.create(provider, name);
      const live = new ScriptedAgent(record.id, provider);
      t!.pool.attach(live);
      return { record, live };
    };

    it("lists this device first and online, with its pool's agents in the user's order", async () => {
      t = await make();
      const { agents, self } = t;
      expect(agents.devices()).toEqual([{ ...self, online: true, agents: [] }]);
      expect(agents.online()).toEqual([]);

      const gpt = add('chatgpt', 'work');
      const claude = add('claude', 'home');
      t.pool.setCap(claude.record.id, 12);
      const [here] = agents.devices();
      expect(here).toMatchObject({ ...self, online: true });
      expect(here!.agents).toEqual([
        {
          id: gpt.record.id,
          device_id: self.id,
          provider: 'chatgpt',
          name: 'work',
          enabled: true,
          position: 1,
          created_at: t.now(),
          cap_per_hour: null,
          state: 'idle',
          ready: true,
          cooldown_until: null,
          pause_until: null,
        },
        expect.objectContaining({ id: claude.record.id, provider: 'claude', name: 'home', position: 2, cap_per_hour: 12, ready: true }),
      ]);
      expect(agents.online()).toEqual(here!.agents);
      expect(agents.get(claude.record.id)).toEqual(here!.agents[1]);
      expect(agents.get('agt_nowhere')).toBeUndefined();
    });

    it('says which agents are ready: idle ones, not busy, pausing, resting, disabled or logged out', async () => {
      t = await make();
      const [busy, pausing, resting, disabled, loggedOut, idle] = ['busy', 'pausing', 'resting', 'disabled', 'out', 'idle'].map((n) => add('gemini', n));
      const { pool, agents } = t;
      pool.setBusy(busy!.record.id, true);
      pool.setPause(pausing!.record.id, 30_000);
      pool.jobDone(pausing!.record.id, 0);
      pool.coolDown(resting!.record.id, t.now() + 600_000);
      pool.setEnabled(disabled!.record.id, false);
      loggedOut!.live.setReadiness('needs_login');
      const seen = Object.fromEntries(agents.online().map((a) => [a.name, [a.state, a.ready]]));
      expect(seen).toEqual({
        busy: ['busy', false],
        pausing: ['idle', false],
        resting: ['resting', false],
        disabled: ['paused', false],
        out: ['needs_login', false],
        idle: ['idle', true],
      });
      expect(agents.get(resting!.record.id)!.cooldown_until).toBe(t.now() + 600_000);
      expect(agents.get(pausing!.record.id)!.pause_until).toBeGreaterThanOrEqual(t.now() + 30_000);
      expect(agents.get(idle!.record.id)).toMatchObject({ cooldown_until: null, pause_until: null });
    });

    it('tells its listeners of every change, an agent going busy included, until they stop listening', async () => {
      t = await make();
      const { record } = add('qwen', 'q');
      let heard = 0;
      const stop = t.agents.onChange(() => heard++);
      t.pool.setBusy(record.id, true);
      expect(heard).toBeGreaterThan(0);
      const afterBusy = heard;
      t.pool.rename(record.id, 'renamed');
      expect(heard).toBeGreaterThan(afterBusy);
      expect(t.agents.get(record.id)!.name).toBe('renamed');
      stop();
      const stopped = heard;
      t.pool.setBusy(record.id, false);
      expect(heard).toBe(stopped);
    });

    it('forgets an agent removed from the pool', async () => {
      t = await make();
      const { record } = add('deepseek', 'd');
      t.pool.remove(record.id);
      expect(t.agents.get(record.id)).toBeUndefined();
      expect(t.agents.online()).toEqual([]);
    });
  });
}
