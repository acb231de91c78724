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
