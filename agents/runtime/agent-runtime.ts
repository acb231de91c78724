import type { Provider } from '../../main/core/providers.js';
import type { AgentRecord, AgentRoster } from '../../main/core/agent-roster.js';
import type { BrowserHost } from '../../main/core/browser-host.js';
import { systemClock, type Clock } from '../../main/core/clock.js';
import { parseProxy } from '../../main/core/proxy.js';
import { FLOW_LIMITS, type FlowLimits } from '../providers/flow-context.js';
import type { SiteStatus } from '../providers/site-book.js';
import type { ProviderSite } from '../providers/site.js';
import { BrowserAgent } from './browser-agent.js';
import type { DiagnosticsKeeper } from './diagnostics.js';

/** Where agents find their provider's site as it is now (a SiteBook, or fixed sites in tests). */
export interface Sites {
  site(provider: Provider): ProviderSite | undefined;
  /** Which override is in force, or why one was refused (a SiteBook). */
  status?(): SiteStatus[];
  /** Reads the overrides on disk now, without waiting for the folder's change events (a SiteBook). */
  refresh?(): Promise<void>;
}

/**
 * Gives every agent row a live BrowserAgent on a browser host, and attaches it to the
 * roster the scheduler dispatches from. Rows added later (a new account) get theirs on the
 * next `start`; a removed row's browser closes and its profile goes; a row whose proxy
 * changed gets a fresh browser that uses it.
 */
export class AgentRuntime {
  private readonly agents = new Map<string, BrowserAgent>();
  /** The proxy each agent's browser was launched with, as stored in its row. */
  private readonly launchedWith = new Map<string, string | null>();

  constructor(
    private readonly roster: AgentRoster,
    private readonly host: BrowserHost,
    private readonly sites: Sites,
    private readonly diagnostics: DiagnosticsKeeper | null = null,
    /** The flow's waits for a missing role, for every agent (tests of that failure shorten them). */
    private readonly limits: FlowLimits = FLOW_LIMITS,
    /** The service's clock, which every agent's decisions follow. */
    readonly clock: Clock = systemClock,
  ) {
    roster.onChange(() => this.followProxies());
  }

  /** Starts the agents of every row that has none yet and whose provider has a site; resolves when all have tried. */
  async start(): Promise<void> {
    await Promise.all(this.roster.list().flatMap((row) => (this.agents.has(row.id) ? [] : [this.launch(row)])));
  }

  /** The site a provider's agents use here: the real one, or the simulator's. */
  site(provider: Provider): ProviderSite | undefined {
    return this.sites.site(provider);
  }

  /** Why a provider's override file was refused, if it was. */
  overrideError(provider: Provider): string | null {
    return this.sites.status?.().find((s) => s.provider === provider)?.error ?? null;
  }

  /** The overrides on disk now are in force once this resolves. */
  async refreshSites(): Promise<void> {
    await this.sites.refresh?.();
  }

  agent(id: string): BrowserAgent | undefined {
    return this.agents.get(id);
  }

  list(): BrowserAgent[] {
    return [...this.agents.values()];
  }

  /**
   * A fresh browser for one agent (its host changed): the old one closes, and a job it was
   * running ends as `agent_lost` and goes back to the queue.
   */
  async restart(id: string): Promise<void> {
    const old = this.agents.get(id);
    this.agents.delete(id);
    this.launchedWith.delete(id);
    await old?.close();
    const row = this.roster.get(id);
    if (row) await this.launch(row);
  }

  /** After the roster's row was removed: closes the agent's browser and deletes its profile (its login). */
  async remove(id: string): Promise<void> {
    const agent = this.agents.get(id);
    this.agents.delete(id);
    this.launchedWith.delete(id);
    await agent?.close();
    await this.host.forget(id);
  }

  /** A proxy set or changed (the dashboard, the command line): that agent's browser starts again with it. */
  private followProxies(): void {
    for (const [id, launched] of this.launchedWith) {
      const row = this.roster.get(id);
      if (row && row.proxy !== launched) void this.restart(id);
    }
  }

  private launch(row: AgentRecord): Promise<void> {
    if (!this.sites.site(row.provider)) return Promise.resolve();
    const egress = () => {
      const proxy = this.roster.get(row.id)?.proxy ?? null;
      return proxy === null ? null : parseProxy(proxy);
    };
    const agent = new BrowserAgent(row.id, () => this.sites.site(row.provider)!, this.host, this.diagnostics, egress, this.limits, this.clock);
    this.agents.set(row.id, agent);
    this.launchedWith.set(row.id, row.proxy);
    this.roster.attach(agent);
    return agent.start();
  }
}
