import type { Agent, AgentState } from '../core/agent.js';
import type { AgentRecord, AgentRoster } from '../core/agent-roster.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { Provider } from '../core/providers.js';
import type { AgentTable } from './agent-table.js';
import { RecheckSchedule, type Condition } from './recheck-schedule.js';
import { Listeners } from '../core/listeners.js';

/**
 * A limit banner's reset time is to the minute at best, and the provider's clock is not
 * ours: the first look after a limit comes this long after the time it gave.
 */
export const AFTER_RESET_MS = 60_000;
/** The pause between an agent's jobs is its minimum plus a random part of up to this share of it. */
export const PAUSE_JITTER = 0.5;

/**
 * The account's agents: their rows in the database (name, enabled, order, cap, pause,
 * proxy) joined with the live Agent that drives each one, and the scheduler's view of them
 * (busy, pausing between jobs, cooling down after a usage-limit banner). An agent that is
 * set aside, resting or logged out looks at its page again on its own (RecheckSchedule). Listeners
 * hear of every change that can free capacity.
 */
export type { AgentRecord };

export class AgentPool implements AgentRoster {
  private records = new Map<string, AgentRecord>();
  private readonly live = new Map<string, Agent>();
  private readonly busy = new Set<string>();
  /** After a usage-limit banner, until a look finds the page free of it. */
  private readonly cooldowns = new Map<string, { until: number }>();
  /** The pause after each job, a guard against bans: not a rest, the agent is fine. */
  private readonly pauses = new Map<string, { until: number; timer: TimerHandle }>();
  private readonly rechecks: RecheckSchedule;
  private looker: (id: string) => Promise<unknown> = (id) => this.live.get(id)!.recheck!();
  private readonly listeners = new Listeners();
  private readonly watchers = new Listeners();

  constructor(
    private readonly table: AgentTable,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.rechecks = new RecheckSchedule(clock, (id) => this.look(id), (id) => this.conditionOf(id));
    this.reload();
  }

  /**
   * Re-reads the rows, after the command line or the dashboard changed them. A rest the rows
   * hold and this pool does not know yet (one begun before a restart) holds here too: an
   * account told to wait is not sent to again because the app restarted.
   */
  reload(): void {
    const rows = this.table.rows();
    const now = this.clock.now();
    for (const { id, rest_until } of rows) if (rest_until !== null && rest_until > now && !this.cooldowns.has(id)) this.cooldowns.set(id, { until: rest_until });
    this.records = new Map(rows.map(({ rest_until: _rest, ...r }) => [r.id, r]));
    this.changed();
  }

  /** Creates the row of a new agent; its live Agent is attached with `attach`. */
  create(provider: Provider, name: string): AgentRecord {
    const id = this.ids.agent();
    this.table.add({ id, provider, name, createdAt: this.clock.now() });
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
    this.table.remove(id);
    this.live.delete(id);
    this.busy.delete(id);
    this.cooldowns.delete(id);
    this.pauses.get(id)?.timer.cancel();
    this.pauses.delete(id);
    this.rechecks.forget(id);
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
    this.table.update(id, { cap_per_hour: cap });
    this.reload();
  }

  rename(id: string, name: string): void {
    this.table.update(id, { name });
    this.reload();
  }

  /** Milliseconds between the agent's jobs (before jitter); null follows the global setting. */
  setPause(id: string, pauseMs: number | null): void {
    this.table.update(id, { pause_ms: pauseMs });
    this.reload();
  }

  /** The agent's browser egress (checked by parseProxy first); null for a direct connection. */
  setProxy(id: string, proxy: string | null): void {
    this.table.update(id, { proxy });
    this.reload();
  }

  setEnabled(id: string, enabled: boolean): void {
    this.table.update(id, { enabled });
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

  /** Enabled, logged in, idle, not cooling down and not pausing between jobs: ready to take a job (caps aside). */
  isReady(id: string): boolean {
    return this.state(id) === 'idle' && !this.pauses.has(id);
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
    // Going busy frees no capacity (onChange stays quiet), but the other devices must see it.
    else this.watchers.emit();
  }

  /** Until when the agent pauses between jobs; null when it does not now. */
  pauseUntil(id: string): number | null {
    return this.pauses.get(id)?.until ?? null;
  }

  /** When the agent looks at its page again on its own (set aside or resting); null when it does not. */
  nextCheckAt(id: string): number | null {
    return this.rechecks.nextAt(id);
  }

  /**
   * An attempt on the agent ended: it is free, after its pause between jobs (its own, else
   * `defaultPauseMs`), plus a random part of up to PAUSE_JITTER of it, so that its jobs do
   * not follow each other at a machine's even pace.
   */
  jobDone(id: string, defaultPauseMs: number): void {
    const record = this.records.get(id);
    const base = record?.pause_ms ?? defaultPauseMs;
    const ms = base + this.ids.pick(Math.floor(base * PAUSE_JITTER) + 1);
    if (ms > 0 && record) {
      this.pauses.get(id)?.timer.cancel();
      const timer = this.clock.setTimer(() => {
        this.pauses.delete(id);
        this.changed();
      }, ms);
      this.pauses.set(id, { until: this.clock.now() + ms, timer });
    }
    this.setBusy(id, false);
  }

  /**
   * After a usage-limit banner: the agent takes no job until a look at its page, soon after
   * `until`, finds no limit notice (an agent with no page to look at: until `until`).
   */
  coolDown(id: string, until: number): void {
    this.cooldowns.set(id, { until });
    this.table.update(id, { rest_until: until });
    this.changed();
  }

  /** The limit lifted (its page shows no notice any more), perhaps sooner than the provider said. */
  endCooldown(id: string): void {
    if (!this.cooldowns.delete(id)) return;
    this.table.update(id, { rest_until: null });
    this.changed();
  }

  /**
   * The agents' own looks go through `look` from now on (the agent runtime's control, which
   * leaves an agent alone while a person logs in to its page) instead of straight to the agent.
   */
  lookThrough(look: (id: string) => Promise<unknown>): void {
    this.looker = look;
  }

  /** No more looks of their own (the service stops). */
  stop(): void {
    this.rechecks.stop();
  }

  /** Returns the function that stops listening. */
  onChange(listener: () => void): () => void {
    return this.listeners.on(listener);
  }

  /**
   * Hears of every change to what the agents' summaries show, an agent going busy included
   * (the devices sharing a database publish them); returns the function that stops it.
   */
  watch(listener: () => void): () => void {
    return this.watchers.on(listener);
  }

  private changed(): void {
    for (const id of this.live.keys()) this.rechecks.update(id);
    this.listeners.emit();
    this.watchers.emit();
  }

  private conditionOf(id: string): Condition {
    const agent = this.live.get(id);
    if (!agent || !this.records.get(id)?.enabled || this.busy.has(id)) return { kind: 'leave' };
    const readiness = agent.readiness();
    // A locked account waits for its person: a page loaded again and again is what keeps it locked.
    if (agent.awaitsPerson?.()) return { kind: 'leave' };
    // A logged-out page is looked at again, slowly: the wall may have been shown by mistake, or
    // the session may be back (a person logged in elsewhere in this profile); nothing is sent.
    if (readiness === 'needs_login') return agent.recheck ? { kind: 'loggedOut' } : { kind: 'leave' };
    if (readiness === 'error') return agent.recheck ? { kind: 'unwell' } : { kind: 'leave' };
    const cooldown = this.cooldowns.get(id);
    if (cooldown) return { kind: 'resting', at: agent.recheck ? cooldown.until + AFTER_RESET_MS : cooldown.until };
    return { kind: 'well' };
  }

  /** The agent looks at its page; a page ready for a job ends a rest (no page to look at: the time alone does). */
  private async look(id: string): Promise<boolean> {
    const agent = this.live.get(id);
    if (!agent) return false;
    const well = agent.recheck ? (await this.looker(id)) === true : true;
    if (well) this.endCooldown(id);
    return well;
  }
}
