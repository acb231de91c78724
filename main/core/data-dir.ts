import { chmodSync, mkdirSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { join, resolve } from 'node:path';

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
