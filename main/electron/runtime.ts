/**
 * Whether this machine can run the desktop app, and launching it. Plain Node: `chatbridge
 * start` asks here before deciding between the app and headless `serve`.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../core/package-root.js';

export type DesktopRuntime = { ok: true; binary: string } | { ok: false; reason: string };

/** The compiled Electron main process (tsc puts main/electron/app.ts there). */
export const DESKTOP_ENTRY = join(PACKAGE_ROOT, 'dist/main/electron/app.js');

/**
 * The `electron` package (an optional dependency: its binary comes from GitHub at install
 * time, which fails without that network) exports the path of the binary it downloaded,
 * and throws when the download did not happen.
 */
function installedElectron(): string {
  return createRequire(import.meta.url)('electron') as string;
}

/**
 * better-sqlite3 is a native module built for one ABI: as installed (and as the tests need
 * it) it loads in Node, and then it cannot load in Electron. `npm run desktop:rebuild`
 * builds it for Electron.
 */
function sqliteBuiltForNode(): boolean {
  try {
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => { close(): void };
    new Database(':memory:').close();
    return true;
  } catch {
    return false;
  }
}

/**
 * The app, or every reason it cannot run, in one line: a machine without a display often
 * lacks the Electron download too (its postinstall fails quietly without GitHub), and naming
 * only the display would hide the second fix.
 */
export function findDesktopRuntime(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  electron: () => string = installedElectron,
  sqliteForNode: () => boolean = sqliteBuiltForNode,
): DesktopRuntime {
  const reasons: string[] = [];
  let binary: string | null = null;
  try {
    binary = electron();
    if (!existsSync(binary)) reasons.push(`no Electron binary at ${binary}`);
  } catch {
    reasons.push('the electron package or its binary is not installed');
  }
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) reasons.push('no display');
  if (reasons.length) return { ok: false, reason: reasons.join('; ') };
  if (sqliteForNode()) return { ok: false, reason: 'better-sqlite3 is built for Node.js; run npm run desktop:rebuild for the app' };
  return { ok: true, binary: binary! };
}

/** Runs the desktop app in the foreground; this process exits with it. */
export function runDesktop(binary: string, args: string[]): Promise<never> {
  const child = spawn(binary, [DESKTOP_ENTRY, ...args], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  return new Promise((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  });
}
