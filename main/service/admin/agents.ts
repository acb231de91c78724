import type { AgentCreate, AgentPatch, AgentView, SiteCheckView } from '../../contract/admin/agents.js';
import type { ViewInput } from '../../core/screen.js';
import { AgentNotRunning, type AgentControl, type AgentScreen } from '../../core/agent-control.js';
import { ApiError, invalid } from '../../core/errors.js';
import { Listeners } from '../../core/listeners.js';
import { PROVIDER_NAMES } from '../../core/providers.js';
import { BadProxy, maskProxy, parseProxy } from '../../core/proxy.js';
import { AgentBusy } from '../../core/site-check.js';
import { timestamp, timestampOrNull as ts } from '../../core/timestamps.js';
import type { LogBook } from '../../logs/log-book.js';
import type { AgentPool } from '../../queue/agent-pool.js';
import type { HourlyUsage } from '../../queue/hourly-usage.js';
import type { JobStore } from '../../queue/job-store.js';
import type { Scheduler } from '../../queue/scheduler.js';

/**
 * The dashboard's agents: each as it shows them, and what a person does to them (add,
 * rename, cap, log in, check now, check the site, remove), through the browsers of the
 * process that runs them once it has attached them.
 */
export class AgentsConsole {
  constructor(
    private readonly deps: {
      pool: AgentPool;
      usage: HourlyUsage;
      store: JobStore;
      scheduler: Scheduler;
      log: LogBook;
    },
  ) {}

  /** The agents' browsers, once the process running them has started them. */
  private control: AgentControl | null = null;
  /** Told when a login step changes. */
  private readonly loginSteps = new Listeners();

  attach(control: AgentControl): void {
    this.control = control;
    control.onChange(() => this.loginSteps.emit());
  }

  /** Hears each change of a login step (`pairing`); returns the function that stops it. */
  onLoginChange(listener: () => void): () => void {
    return this.loginSteps.on(listener);
  }

  list(): AgentView[] {
    return this.deps.pool.list().map((a) => this.view(a.id));
  }

  update(id: string, patch: AgentPatch): AgentView {
    const { pool, scheduler } = this.deps;
    if (!pool.get(id)) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    if (patch.name !== undefined) pool.rename(id, patch.name.trim() || pool.get(id)!.name);
    if (patch.enabled !== undefined) pool.setEnabled(id, patch.enabled);
    if (patch.cap_per_hour !== undefined) pool.setCap(id, patch.cap_per_hour);
    if (patch.pause_ms !== undefined) pool.setPause(id, patch.pause_ms);
    // Stored as given once it checks out; the agent runtime restarts the agent's browser with it.
    if (patch.proxy !== undefined) pool.setProxy(id, patch.proxy === null || patch.proxy.trim() === '' ? null : checkedProxy(patch.proxy));
    scheduler.wake();
    return this.view(id);
  }

  /**
   * "Add account": a new agent, its browser started, and a login shown in its page (in the
   * dashboard headless, in a window of the desktop app). The agent is idle once logged in.
   */
  async add(input: AgentCreate): Promise<AgentView> {
    const control = this.agentControl();
    const { pool } = this.deps;
    const taken = new Set(pool.list().map((a) => a.name));
    let name = input.name?.trim();
    if (!name) {
      let n = pool.list().filter((a) => a.provider === input.provider).length + 1;
      while (taken.has(`${PROVIDER_NAMES[input.provider]} ${n}`)) n++;
      name = `${PROVIDER_NAMES[input.provider]} ${n}`;
    }
    const record = pool.create(input.provider, name);
    this.deps.log.info('agent', `${name}: added (${PROVIDER_NAMES[input.provider]}), opening its login page`);
    await control.start(record.id);
    // A browser that did not start leaves the agent in `error`, with its reason: the card shows it.
    await control.logIn(record.id).catch((error: unknown) => {
      if (!(error instanceof AgentNotRunning)) throw error;
    });
    return this.view(record.id);
  }

  /**
   * Removes an agent and its login. Refused while it runs a job, or while queued jobs
   * continue one of its conversations (only it can run them).
   */
  async remove(id: string): Promise<void> {
    const { pool, scheduler, store } = this.deps;
    if (!pool.get(id)) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    const pinned = (await store.queuedInOrder()).filter((job) => job.req_agent_id === id).length;
    if (pinned > 0) {
      throw new ApiError('CONFLICT', `${pinned} queued job${pinned === 1 ? '' : 's'} can only run on this agent. Cancel them or let them run, then remove it.`);
    }
    if (!pool.get(id)) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    if (scheduler.isRunningOn(id)) {
      throw new ApiError('CONFLICT', 'This agent is running a job. Pause it, wait for the job to end (or cancel it), then remove it.');
    }
    // The row goes first, in this same turn as the running check, so no job can be dispatched to it meanwhile.
    const { name } = pool.get(id)!;
    pool.remove(id);
    try {
      await this.control?.remove(id);
      this.deps.log.info('agent', `${name}: removed, with its login`);
    } catch (error) {
      // The agent is gone either way; what is left on disk is the person's to know about.
      this.deps.log.warn('agent', `${name}: removed, but its browser profile could not be deleted: ${(error as Error).message}`);
    }
  }

  /** Logs an agent in again, or, while its login is shown, checks now whether it is logged in. */
  async logIn(id: string): Promise<AgentView> {
    const control = this.agentControl();
    if (!this.deps.pool.get(id)) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    try {
      await control.logIn(id);
    } catch (error) {
      if (error instanceof AgentNotRunning) throw new ApiError('CONFLICT', error.message);
      throw error;
    }
    return this.view(id);
  }

  /**
   * "Check now" and `chatbridge agents check`: the agent looks at its page again at once,
   * instead of at its next scheduled look, and says where it stands. During a login this is
   * that login's "I have logged in"; an agent running a job is left alone (it is fine). A
   * page ready for a job also ends a rest after a usage limit: the provider lifted it sooner
   * than it said.
   */
  async check(id: string): Promise<AgentView> {
    const { pool, scheduler, log } = this.deps;
    const record = pool.get(id);
    if (!record) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    const control = this.agentControl();
    if (control.loginStep(id)) return this.logIn(id);
    if (scheduler.isRunningOn(id)) return this.view(id);
    // Marked busy meanwhile, so no job is handed to a page that is being looked at.
    pool.setBusy(id, true);
    try {
      if ((await control.recheck(id)) && pool.cooldownUntil(id) !== null) {
        pool.endCooldown(id);
        log.info('agent', `${record.name}: checked on request, no usage limit shows any more: it takes jobs again`);
      }
    } catch (error) {
      if (error instanceof AgentBusy || error instanceof AgentNotRunning) throw new ApiError('CONFLICT', error.message);
      throw error;
    } finally {
      pool.setBusy(id, false);
    }
    return this.view(id);
  }

  /**
   * "Check site" and `chatbridge sites check`: which cue finds each role of the agent's pack
   * on a fresh chat (and, with `send`, on the answer to a probe prompt). Refused while the
   * agent runs a job or a login.
   */
  async checkSite(id: string, send: boolean): Promise<SiteCheckView> {
    const control = this.agentControl();
    const record = this.deps.pool.get(id);
    if (!record) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    if (this.deps.scheduler.isRunningOn(id)) throw new ApiError('CONFLICT', 'This agent is running a job: check its site once the job is done.');
    let check;
    // Busy meanwhile, as for "Check now": no job is handed to a page being looked at, and a check is no error.
    this.deps.pool.setBusy(id, true);
    try {
      check = await control.checkSite(id, { send });
    } catch (error) {
      if (error instanceof AgentBusy || error instanceof AgentNotRunning) throw new ApiError('CONFLICT', error.message);
      throw error;
    } finally {
      this.deps.pool.setBusy(id, false);
    }
    const missing = check.roles.filter((r) => r.status === 'missing').map((r) => r.role);
    const outcome = check.problem ?? (missing.length ? `missing ${missing.join(', ')}` : 'every role found');
    this.deps.log.add(check.ok ? 'info' : 'warn', 'agent', `${record.name}: site check${send ? ' with a probe' : ''}: ${outcome}`);
    return { ...check, at: timestamp(check.at) };
  }

  endLogIn(id: string): AgentView {
    if (!this.deps.pool.get(id)) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    this.control?.endLogIn(id);
    return this.view(id);
  }

  /** The agent's page, to watch (and, during a login, to use) from the dashboard. */
  screen(id: string): AgentScreen {
    const control = this.agentControl();
    if (!this.deps.pool.get(id)) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    const screen = control.screen(id);
    if (!screen) throw new ApiError('CONFLICT', "This agent's browser is not running right now; its state says why.");
    return screen;
  }

  /** Clicks and keys reach an agent's page only during a login: otherwise a person could disturb a job. */
  async input(id: string, event: ViewInput): Promise<void> {
    const screen = this.screen(id);
    if (this.control?.loginStep(id) !== 'login') {
      throw new ApiError('CONFLICT', 'The page takes clicks and keys only while you log in; otherwise it is there to watch.');
    }
    try {
      await screen.input(event);
    } catch (error) {
      throw new ApiError('CONFLICT', `The page did not take it: ${(error as Error).message.split('\n')[0]}`);
    }
  }

  private agentControl(): AgentControl {
    if (this.control) return this.control;
    throw new ApiError('NO_DEVICE_ONLINE', 'The agents are not running in this ChatBridge yet (no browser found, or still starting). The log says which.');
  }

  private view(id: string): AgentView {
    const { pool, usage } = this.deps;
    const a = pool.get(id)!;
    return {
      id: a.id,
      name: a.name,
      provider: a.provider,
      state: pool.state(a.id),
      detail: pool.liveAgent(a.id)?.detail?.() ?? null,
      enabled: a.enabled,
      position: a.position,
      cap_per_hour: a.cap_per_hour,
      used_this_hour: usage.count({ agentId: a.id }),
      next_slot_at: ts(usage.nextSlotAt({ agentId: a.id }, a.cap_per_hour)),
      cooldown_until: ts(pool.cooldownUntil(a.id)),
      next_check_at: ts(pool.nextCheckAt(a.id)),
      pause_ms: a.pause_ms,
      pause_until: ts(pool.pauseUntil(a.id)),
      proxy: a.proxy === null ? null : maskProxy(a.proxy),
      pairing: this.control?.loginStep(a.id) ?? null,
      created_at: timestamp(a.created_at),
    };
  }
}

function checkedProxy(text: string): string {
  try {
    parseProxy(text);
  } catch (error) {
    if (error instanceof BadProxy) throw invalid('proxy', error.message);
    throw error;
  }
  return text.trim();
}
