import { chmodSync, mkdirSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * Where ChatBridge keeps its database, browser profiles and tokens: --data-dir, else
 * CHATBRIDGE_DATA_DIR, else the OS convention (XDG_DATA_HOME on Linux).
 */
export function resolveDataDir(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag);
  if (env.CHATBRIDGE_DATA_DIR) return resolve(env.CHATBRIDGE_DATA_DIR);
  switch (platform()) {
    case 'darwin':
      return join(homedir(), 'Library', 'Application Support', 'ChatBridge');
    case 'win32':
      return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'ChatBridge');
    default:
      return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'chatbridge');
  }
}

/** Where `serve --simulate` keeps its own data, so simulated agents never mix with real accounts. */
export function simulationDir(dataDir: string): string {
  return join(dataDir, 'simulator');
}

/**
 * Simulated sites cannot ban: a simulation runs with no pause between an agent's jobs
 * unless one is set (`settings pause`). Through the default the settings read
 * (CHATBRIDGE_PAUSE_MS, of this process only), so a pause set on a database shared with
 * real devices still holds, and `settings pause` on the simulation's data dir shows what
 * its server does.
 */
export function noDefaultPauseIn(dataDir: string): void {
  if (simulationDir(dirname(dataDir)) === dataDir) process.env.CHATBRIDGE_PAUSE_MS ??= '0';
}

/**
 * The data dir holds every prompt and answer, the webhook signing secret, the admin token
 * and the browser profiles with the accounts' logins: it is its owner's only. Made 0700 if
 * missing and set back to 0700 at every start (a folder made by hand, or by an older
 * version, may be 0755). Returns a one-line warning when the mode cannot be set.
 */
export function secureDataDir(dataDir: string): string | null {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dataDir, 0o700);
    return null;
  } catch (error) {
    return `cannot make the data dir ${dataDir} private to its owner (mode 0700): ${(error as Error).message}`;
  }
}
