import type { Provider } from '../../main/core/providers.js';
import { SIM_SITES } from './site-config.js';
import { startSiteServer, type SimSite } from './site-server.js';

export interface Simulator {
  sites: Partial<Record<Provider, SimSite>>;
  close(): Promise<void>;
}

/** Starts one simulated site per provider on loopback (each on its own port, so its own origin). */
export async function startSimulator(providers: readonly Provider[] = Object.keys(SIM_SITES) as Provider[]): Promise<Simulator> {
  const sites: Partial<Record<Provider, SimSite>> = {};
  for (const provider of providers) {
    sites[provider] = await startSiteServer(SIM_SITES[provider]);
  }
  return {
    sites,
    close: async () => {
      await Promise.all(Object.values(sites).map((s) => s.close()));
    },
  };
}
