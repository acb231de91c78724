import { join } from 'node:path';
import { KeptKey } from '../keys/kept-key.js';
import type { Service } from '../service/service.js';

/** Where the simulation keeps its key's secret, beside its admin token. */
const KEY_FILE = 'simulator-key';

/**
 * The simulation's API key (both scopes), kept from one run of `serve --simulate` to the
 * next (KeptKey), so the scripts, SDK set-ups and MCP configurations made with it keep
 * working; `--new-key` replaces it.
 */
export async function simulationKey(service: Service, dataDir: string, renew: boolean): Promise<{ secret: string; made: boolean }> {
  const key = new KeptKey(service.keys, join(dataDir, KEY_FILE), async () => ({
    // On a shared database each device's simulator has its own.
    name: service.deviceName ? `simulator (${service.deviceName})` : 'simulator',
    scopes: ['completions:read', 'completions:write'],
    // In the hosted profile a key belongs to an account: the simulator's has one of its own.
    accountId: service.profile.accounts
      ? (service.accounts.list().find((a) => a.name === 'simulator' && a.disabled_at === null) ?? (await service.accounts.create({ name: 'simulator', retentionDays: null }))).id
      : null,
  }));
  return key.get(renew);
}
