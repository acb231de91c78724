import type { Provider } from '../../main/core/providers.js';
import type { AgentPool } from '../../main/queue/agent-pool.js';
import type { BrowserHost } from '../browser/browser-host.js';
import type { ProviderSite } from '../providers/site.js';
import { BrowserAgent } from './browser-agent.js';

/**
 * Gives every agent row a live BrowserAgent on a browser host, and attaches it to the
 * pool the scheduler dispatches from.
 */
export class AgentRuntime {
  private readonly agents = new Map<string, BrowserAgent>();

  constructor(
    private readonly pool: AgentPool,
    private readonly host: BrowserHost,
    private readonly sites: Partial<Record<Provider, ProviderSite>>,
  ) {}

  /** Starts the agents of every row whose provider has a site; resolves when all have tried. */
  async start(): Promise<void> {
    const started = this.pool.list().flatMap((row) => {
      const site = this.sites[row.provider];
      if (!site || this.agents.has(row.id)) return [];
      const agent = new BrowserAgent(row.id, site, this.host);
      this.agents.set(row.id, agent);
      this.pool.attach(agent);
      return [agent.start()];
    });
    await Promise.all(started);
  }

  agent(id: string): BrowserAgent | undefined {
    return this.agents.get(id);
  }

  list(): BrowserAgent[] {
    return [...this.agents.values()];
  }
}
