import { join } from 'node:path';
import { PROVIDERS, type Provider } from '../../main/core/providers.js';
import type { AgentRoster } from '../../main/core/agent-roster.js';
import { ChromiumHost } from '../browser/chromium-host.js';
import { findBrowser } from '../browser/find-browser.js';
import type { SiteBook, SiteBookNote } from '../providers/site-book.js';
import { AgentRuntime } from '../runtime/agent-runtime.js';
import { openSites } from '../runtime/start-agents.js';
import { signInToSimulator } from './sign-in.js';
import { SIM_SITES } from './site-config.js';
import { startSimulator, type SimLooks, type Simulator } from './simulator.js';

export interface SimulatedAgents {
  simulator: Simulator;
  runtime: AgentRuntime;
  sites: SiteBook;
  close(): Promise<void>;
}

/**
 * `serve --simulate`: the six simulated sites, and `counts[provider]` real browser agents
 * on each, paired through each site's login page as a person would. The agent rows are
 * named "<Provider> (simulated) <n>" and reused across restarts. Accounts added from the
 * dashboard use the simulated sites too, and are paired by the person, in the dashboard.
 * The sites keep their addresses, sessions, conversations and logs in
 * `<data dir>/simulated-sites` from one run to the next.
 */
export async function startSimulatedAgents(
  roster: AgentRoster,
  dataDir: string,
  counts: Partial<Record<Provider, number>>,
  looks: SimLooks = {},
  notes: (note: SiteBookNote) => void = () => {},
): Promise<SimulatedAgents> {
  const simulator = await startSimulator(PROVIDERS, looks, join(dataDir, 'simulated-sites'));
  for (const provider of PROVIDERS.filter((p) => (counts[p] ?? 0) > 0)) {
    for (let i = 1; i <= counts[provider]!; i++) {
      const name = `${SIM_SITES[provider].name} (simulated) ${i}`;
      if (!roster.list().some((a) => a.name === name && a.provider === provider)) roster.create(provider, name);
    }
  }
  const baseUrls = Object.fromEntries(PROVIDERS.map((p) => [p, simulator.sites[p]!.url]));
  const { sites, diagnostics } = await openSites(dataDir, notes, baseUrls);
  const runtime = new AgentRuntime(roster, ChromiumHost.launching(join(dataDir, 'profiles'), findBrowser()), sites, diagnostics);
  await runtime.start();
  await Promise.all(
    runtime
      .list()
      .filter((a) => a.readiness() === 'needs_login')
      .map((a) => signInToSimulator(a, simulator.sites[a.provider]!.url, SIM_SITES[a.provider])),
  );
  return {
    simulator,
    runtime,
    sites,
    close: () => {
      sites.close();
      return simulator.close();
    },
  };
}
