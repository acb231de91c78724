/**
 * `npm run build` (prepare, npm test) skips a build dist/ already holds, and the bin says
 * when the app's sources changed since the last one: the real scripts/build.js,
 * scripts/build-stamp.js and bin/chatbridge.js, copied into a small project whose `compile`
 * counts its runs.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';

/** Writes the two outputs a complete build leaves, counts the run, fails while `fail` exists. */
const COMPILE = `
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
if (existsSync('fail')) { console.error('compile: failed'); process.exit(2); }
mkdirSync('dist/main/cli', { recursive: true });
mkdirSync('dist/renderer', { recursive: true });
writeFileSync('dist/main/cli/main.js', 'export function main() { process.stdout.write("ran\\\\n"); }\\n');
writeFileSync('dist/renderer/index.html', '<!doctype html>');
appendFileSync('compiles', 'x');
`;

let root = '';

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

function run(script: string, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, [join(root, script), ...args], { cwd: root }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );
}

const build = (...args: string[]) => run('scripts/build.js', args);
const compiles = () => {
  try {
    return readFileSync(join(root, 'compiles'), 'utf8').length;
  } catch {
    return 0;
  }
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chatbridge-build-'));
  for (const file of ['scripts/build.js', 'scripts/build-stamp.js', 'bin/chatbridge.js']) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    copyFileSync(join(PACKAGE_ROOT, file), join(root, file));
  }
  write('package.json', JSON.stringify({ name: 'build-fixture', type: 'module', scripts: { compile: 'node compile.mjs' } }));
  write('compile.mjs', COMPILE);
  write('main/app.ts', 'export const a = 1;\n');
  write('renderer/src/view.tsx', 'export {};\n');
  write('test/some.test.ts', 'export {};\n');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('build once', () => {
  it('builds a tree without a build, then skips while nothing changed', async () => {
    const first = await build();
    expect(first.stdout).toContain('compiling (no complete build in dist/)');
    expect(compiles()).toBe(1);
    const second = await build();
    expect(second.stdout).toContain('dist/ is up to date');
    expect(compiles()).toBe(1);
  });

  it('builds again when an input is edited, added or removed, naming it', async () => {
    await build();
    write('main/app.ts', 'export const a = 2;\n');
    expect((await build()).stdout).toContain('compiling (main/app.ts changed)');
    write('agents/new.ts', 'export {};\n');
    write('tsconfig.json', '{}');
    expect((await build()).stdout).toContain('compiling (agents/new.ts and 1 more changed)');
    rmSync(join(root, 'renderer/src/view.tsx'));
    expect((await build()).stdout).toContain('compiling (renderer/src/view.tsx changed)');
    expect(compiles()).toBe(4);
    expect((await build()).stdout).toContain('up to date');
    expect(compiles()).toBe(4);
  });

  it('skips a file touched but not changed (a checkout, a save without edits)', async () => {
    await build();
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'main/app.ts'), later, later);
    expect((await build()).stdout).toContain('up to date');
    expect(compiles()).toBe(1);
  });

  it('builds after a failed build, after a half-cleaned dist/, and when forced', async () => {
    await build();
    write('main/app.ts', 'export const a = 3;\n');
    write('fail', '');
    const failed = await build();
    expect(failed.code).toBe(2);
    rmSync(join(root, 'fail'));
    expect((await build()).stdout).toContain('compiling (no complete build in dist/)');
    rmSync(join(root, 'dist/renderer'), { recursive: true });
    expect((await build()).stdout).toContain('compiling (no complete build in dist/)');
    expect((await build('--force')).stdout).toContain('compiling (forced)');
    expect(compiles()).toBe(4);
  });

  it('the bin runs dist/ as it is and says when the app changed since, not when only a test did', async () => {
    await build();
    expect(await run('bin/chatbridge.js')).toEqual({ code: 0, stdout: 'ran\n', stderr: '' });
    write('test/some.test.ts', 'export const changed = true;\n');
    write('bench/new.ts', 'export {};\n');
    expect((await run('bin/chatbridge.js')).stderr).toBe('');
    rmSync(join(root, 'test/some.test.ts'));
    expect((await run('bin/chatbridge.js')).stderr).toBe('');
    write('main/app.ts', 'export const a = 4;\n');
    const stale = await run('bin/chatbridge.js');
    expect(stale.stdout).toBe('ran\n');
    expect(stale.stderr).toBe('chatbridge: dist/ is older than the sources (main/app.ts changed since the last build); npm run build updates it\n');
    expect(compiles()).toBe(1);
  });
});
