#!/usr/bin/env node
/**
 * `npm run build` (also run by `prepare` and `npm test`): compiles everything (`npm run
 * compile`) unless dist/ was built from these very sources, so `npm install && npm test`
 * builds once and a second `npm install` or `npx chatbridge` leaves a running server's dist/
 * alone. `--force` builds anyway.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildState, STAMP, takeStamp, writeStamp } from './build-stamp.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const force = process.argv.includes('--force');

const { state, changed } = buildState(root);
if (state === 'fresh' && !force) {
  process.stdout.write('build: dist/ is up to date with the sources (npm run build -- --force builds anyway)\n');
  process.exit(0);
}
const reason = force ? 'forced' : state === 'missing' ? 'no complete build in dist/' : `${changed[0]}${changed.length > 1 ? ` and ${changed.length - 1} more` : ''} changed`;
process.stdout.write(`build: compiling (${reason})\n`);

const stamp = takeStamp(root);
// A build that fails or is stopped half way must not leave the last stamp behind.
rmSync(join(root, STAMP), { force: true });
// Under npm, its own CLI (npm_execpath); run by hand, the npm on the PATH.
const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
const result = spawnSync(npm[0], [...npm[1], 'run', '--silent', 'compile'], {
  cwd: root,
  stdio: 'inherit',
  shell: !process.env.npm_execpath && process.platform === 'win32',
});
if (result.status !== 0) process.exit(result.status ?? 1);
writeStamp(root, stamp);
