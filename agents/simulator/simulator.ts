import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Provider } from '../../main/core/providers.js';
import { SIM_SITES } from './site-config.js';
import type { DriftKind } from './client/drift-kinds.js';
import { startSiteServer, type SimSite } from './site-server.js';

/** What the simulated sites look like: a layout per provider (else its default), and drift for all. */
export interface SimLooks {
  layouts?: Partial<Record<Provider, string>>;
  drift?: readonly DriftKind[];
}

export interface Simulator {
  sites: Partial<Record<Provider, SimSite>>;
  close(): Promise<void>;
}

/**
 * Starts one simulated site per provider on loopback (each on its own port, so its own
 * origin). With `stateDir`, each keeps what it holds there from one run to the next
 * (site-state.ts), as `serve --simulate` does in its data folder.
 */
export async function startSimulator(
  providers: readonly Provider[] = Object.keys(SIM_SITES) as Provider[],
  looks: SimLooks = {},
  stateDir?: string,
): Promise<Simulator> {
  if (stateDir) mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const sites: Partial<Record<Provider, SimSite>> = {};
  for (const provider of providers) {
    const look = { drift: looks.drift ?? [], ...(looks.layouts?.[provider] ? { layout: looks.layouts[provider] } : {}) };
    sites[provider] = await startSiteServer(SIM_SITES[provider], look, Date.now, stateDir && join(stateDir, `${provider}.json`));
  }
  return {
    sites,
    close: async () => {
      await Promise.all(Object.values(sites).map((s) => s.close()));
    },
  };
}
