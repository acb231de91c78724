import type { Agent, AgentState } from '../core/agent.js';
import type { AgentRecord, AgentRoster } from '../core/agent-roster.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { Provider } from '../core/providers.js';
import type { Db } from './db.js';


/**
 * The account's agents: their rows in the database (name, enabled, order, cap) joined with
 * the live Agent that drives each one, and the scheduler's view of them (busy, cooling
 * down after a usage-limit banner). Listeners hear of every change that can free capacity.
 */
export type { AgentRecord };

export class AgentPool implements AgentRoster {
  private records = new Map<string, AgentRecord>();
  private readonly live = new Map<string, Agent>();
  private readonly busy = new Set<string>();
  private readonly cooldowns = new Map<string, { until: number; timer: TimerHandle }>();
  private readonly listeners: (() => void)[] = [];
  private readonly s;

  constructor(
    db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.s = {
      all: db.prepare(`SELECT * FROM agents ORDER BY position, created_at`),
      insert: db.prepare(
        `INSERT INTO agents (id, provider, name, enabled, position, cap_per_hour, created_at)
         VALUES (@id, @provider, @name, 1, (SELECT COALESCE(MAX(position), 0) + 1 FROM agents), NULL, @created_at)`,
      ),
      setCap: db.prepare(`UPDATE agents SET cap_per_hour = ? WHERE id = ?`),
      setEnabled: db.prepare(`UPDATE agents SET enabled = ? WHERE id = ?`),
      rename: db.prepare(`UPDATE agents SET name = ? WHERE id = ?`),
      remove: db.prepare(`DELETE FROM agents WHERE id = ?`),
    };
    this.reload();
  }

  /** Re-reads the rows, after the command line or the dashboard changed them. */
  reload(): void {
    const rows = this.s.all.all() as (Omit<AgentRecord, 'enabled'> & { enabled: number })[];
    this.records = new Map(rows.map((r) => [r.id, { ...r, enabled: r.enabled === 1 }]));
    this.changed();
  }

  /** Creates the row of a new agent; its live Agent is attached with `attach`. */
  create(provider: Provider, name: string): AgentRecord {
    const id = this.ids.agent();
    this.s.insert.run({ id, provider, name, created_at: this.clock.now() });
    this.reload();
    return this.records.get(id)!;
  }

  attach(agent: Agent): void {
    if (!this.records.has(agent.id)) throw new Error(`No agent row for ${agent.id}`);
    this.live.set(agent.id, agent);
    agent.onChange(() => this.changed());
    this.changed();
  }

  /**
   * Deletes the agent's row and forgets its live Agent (the caller closes its browser).
   * Its past jobs keep the agent's id; its conversations can no longer be continued.
   */
  remove(id: string): void {
    this.s.remove.run(id);
    this.live.delete(id);
    this.busy.delete(id);
    this.cooldowns.get(id)?.timer.cancel();
    this.cooldowns.delete(id);
    this.reload();
  }

  liveAgent(id: string): Agent | undefined {
    return this.live.get(id);
  }

  liveAgents(): Agent[] {
    return [...this.live.values()];
  }

  get(id: string): AgentRecord | undefined {
    return this.records.get(id);
  }

  /** In the user's order. */
  list(): AgentRecord[] {
    return [...this.records.values()];
  }

  setCap(id: string, cap: number | null): void {
    this.s.setCap.run(cap, id);
    this.reload();
  }

  rename(id: string, name: string): void {
    this.s.rename.run(name, id);
    this.reload();
  }

  setEnabled(id: string, enabled: boolean): void {
    this.s.setEnabled.run(enabled ? 1 : 0, id);
    this.reload();
  }

  /** One truth for every view: a logged-in agent cooling down after a usage limit is `resting`, not idle. */
  state(id: string): AgentState {
    const record = this.records.get(id);
    if (!record || !record.enabled) return 'paused';
    if (this.busy.has(id)) return 'busy';
    const readiness = this.live.get(id)?.readiness() ?? 'error';
    return readiness === 'idle' && this.cooldowns.has(id) ? 'resting' : readiness;
  }

  /** Enabled, logged in, idle and not cooling down: ready to take a job (caps aside). */
  isReady(id: string): boolean {
    return this.state(id) === 'idle';
  }

  /** Agents that could take work, now or once they are free: enabled and logged in. */
  isUsable(id: string): boolean {
    const state = this.state(id);
    return state === 'idle' || state === 'busy' || state === 'resting';
  }

  cooldownUntil(id: string): number | null {
    return this.cooldowns.get(id)?.until ?? null;
  }

  setBusy(id: string, busy: boolean): void {
    if (busy) this.busy.add(id);
    else this.busy.delete(id);
    if (!busy) this.changed();
  }

  /** After a usage-limit banner: the agent takes no job until `until`. */
  coolDown(id: string, until: number): void {
    this.cooldowns.get(id)?.timer.cancel();
    const timer = this.clock.setTimer(() => {
      this.cooldowns.delete(id);
      this.changed();
    }, until - this.clock.now());
    this.cooldowns.set(id, { until, timer });
    this.changed();
  }

  /** The limit lifted sooner than the provider said (its page shows no notice any more). */
  endCooldown(id: string): void {
    const cooldown = this.cooldowns.get(id);
    if (!cooldown) return;
    cooldown.timer.cancel();
    this.cooldowns.delete(id);
    this.changed();
  }

  /** Returns the function that stops listening. */
  onChange(listener: () => void): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
