/** The command line named as the person's shell runs it: `chatbridge` where installed on the PATH, else `npx chatbridge`. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliName } from '../../main/core/cli-name.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(process.platform === 'win32')('cliName', () => {
  it('is chatbridge where this install is linked on the PATH, npx chatbridge in a clone, a dependency, or beside another install', () => {
    const root = mkdtempSync(join(tmpdir(), 'chatbridge-cli-name-'));
    dirs.push(root);
    const bin = join(root, 'clone', 'bin', 'chatbridge.js');
    mkdirSync(join(root, 'clone', 'bin'), { recursive: true });
    writeFileSync(bin, '');
    const dir = (name: string, target: string | null) => {
      const d = join(root, name);
      mkdirSync(d, { recursive: true });
      if (target) symlinkSync(target, join(d, 'chatbridge'));
      return d;
    };
    const global = dir('global/bin', bin);
    const other = dir('other/bin', join(root, 'other-install.js'));
    writeFileSync(join(root, 'other-install.js'), '');
    const npmRun = dir('project/node_modules/.bin', bin);
    const empty = dir('usr/bin', null);
    const path = (...ds: string[]) => ({ PATH: ds.join(delimiter) });

    expect(cliName(path(empty, global), bin)).toBe('chatbridge');
    expect(cliName(path(empty), bin)).toBe('npx chatbridge');
    // What npm puts on the PATH of `npm start` is not the shell's.
    expect(cliName(path(npmRun, empty), bin)).toBe('npx chatbridge');
    // Another ChatBridge on the PATH is not this one.
    expect(cliName(path(other), bin)).toBe('npx chatbridge');
    // The desktop app's package has no bin/ (build/electron-builder.json): nothing to find, nothing thrown.
    expect(cliName(path(global), join(root, 'app.asar', 'bin', 'chatbridge.js'))).toBe('npx chatbridge');
  });
});
