import { existsSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { PACKAGE_ROOT } from './package-root.js';

/**
 * Directories npm puts on the PATH of what it runs (a project's node_modules/.bin, npx's
 * cache): they are not on the PATH of the person's own shell, where a hint is run.
 */
const NPM_RUN_PATH = /[\\/]node_modules[\\/]\.bin$|[\\/]_npx[\\/]/;

/**
 * How a person runs this ChatBridge's command line from their shell, so the hints it prints
 * run as printed: `chatbridge` where this install is on their PATH (a global install, or
 * `npm link`), else `npx chatbridge` (a clone, or a project's dependency), which npm finds.
 */
export function cliName(env: NodeJS.ProcessEnv = process.env, bin = join(PACKAGE_ROOT, 'bin', 'chatbridge.js')): string {
  // The desktop app's package carries no command line of its own.
  if (!existsSync(bin)) return 'npx chatbridge';
  const ours = realpathSync(bin);
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || NPM_RUN_PATH.test(dir)) continue;
    for (const name of process.platform === 'win32' ? ['chatbridge.cmd', 'chatbridge.ps1'] : ['chatbridge']) {
      const found = join(dir, name);
      if (!existsSync(found)) continue;
      // npm's Windows shims are scripts that call the bin; elsewhere the command is a link to it.
      if (process.platform === 'win32' || realpathSync(found) === ours) return 'chatbridge';
    }
  }
  return 'npx chatbridge';
}

/** This process's way of naming the command line in its hints (cliName). */
export const CLI = cliName();
