/**
 * The types, as `npm run typecheck` checks them: the build emits file by file without checking
 * (scripts/compile.js), so `npm test` runs code with type errors; test:full (and CI) fails
 * on it here, with tsc's own words.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';

const PROJECTS = ['tsconfig.json', 'tsconfig.electron.json', 'renderer/tsconfig.json'];

for (const project of PROJECTS) {
  it(`${project} type-checks`, async () => {
    const tsc = promisify(execFile)(process.execPath, [join(PACKAGE_ROOT, 'node_modules/typescript/bin/tsc'), '-p', project, '--noEmit'], { cwd: PACKAGE_ROOT });
    const errors = await tsc.then(
      () => '',
      (failed: { stdout?: string; message: string }) => failed.stdout || failed.message,
    );
    expect(errors).toBe('');
  }, 180_000);
}
