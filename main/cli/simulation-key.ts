import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Service } from '../service/service.js';

/** Where the simulation keeps its key's secret, beside its admin token. */
const KEY_FILE = 'simulator-key';

/**
 * The simulation's API key (both scopes), the same from one run of `serve --simulate` to the
 * next, so the scripts, SDK set-ups and MCP configurations made with it keep working. Its
 * secret is kept in the simulation's data folder, readable by its owner only, as the admin
 * token is (the database keeps only its hash). A new key replaces it (the old one is revoked)
 * when asked (`--new-key`), or when the one kept no longer works (revoked, expired).
 */
export async function simulationKey(service: Service, dataDir: string, renew: boolean): Promise<{ secret: string; made: boolean }> {
  const file = join(dataDir, KEY_FILE);
  const kept = readSecret(file);
  if (!renew && kept && service.keys.authenticate(kept).ok) return { secret: kept, made: false };
  // On a shared database each device's simulator has its own.
  const name = service.deviceName ? `simulator (${service.deviceName})` : 'simulator';
  for (const old of service.keys.list()) if (old.name === name && !old.revoked_at) await service.keys.revoke(old.id);
  // In the hosted profile a key belongs to an account: the simulator's has one of its own.
  const accountId = service.profile.accounts
    ? (service.accounts.list().find((a) => a.name === 'simulator' && a.disabled_at === null) ?? (await service.accounts.create({ name: 'simulator', retentionDays: null }))).id
    : null;
  const { secret } = await service.keys.create({ name, scopes: ['completions:read', 'completions:write'], expiresAt: null, accountId });
  writeFileSync(`${file}.new`, `${secret}\n`, { mode: 0o600 });
  renameSync(`${file}.new`, file);
  return { secret, made: true };
}

function readSecret(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}
