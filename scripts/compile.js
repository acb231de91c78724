#!/usr/bin/env node
/**
 * `npm run compile` (scripts/build.js runs it when dist/ is out of date): the TypeScript of
 * main, agents, test and bench to JavaScript in dist/, file by file with oxc (through
 * rolldown, which Vite builds the dashboard with), their JSON beside them; meanwhile, the
 * desktop's preload (a CommonJS script: tsc, tsconfig.electron.json), the declarations of
 * `chatbridge/client` (tsc, tsconfig.client.json) and the dashboard (Vite).
 *
 * It does not type-check: per file, it takes out the types and nothing else, which
 * `isolatedModules` in tsconfig.json holds every file to. `npm run typecheck` checks the types,
 * and test:full (CI) with it (test/typecheck.test.ts). That keeps tsc's 20 s of checking out
 * of `npm install`, `npm start` and every `npm test` after an edit.
 *
 * Plain JavaScript: it runs before anything is compiled.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'rolldown/utils';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** tsconfig.json's folders; the dashboard's tests are Vitest's alone. */
const SOURCES = ['main', 'agents', 'test', 'bench'];
const SKIPPED = new Set(['test/renderer']);
/** tsconfig.json's target. */
const TARGET = 'es2022';

/** Runs a package's command with this Node (as npm would, on any platform); resolves when it succeeds, rejects when not. */
function run(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'node_modules', script), ...args], { cwd: root, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${script} ${args.join(' ')} failed`))));
  });
}

/** The source files under `dir` (relative to the root, `/`-separated). */
function sourcesIn(dir) {
  const files = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!SKIPPED.has(path)) files.push(...sourcesIn(path));
    } else if (/\.(ts|json)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

/** Each TypeScript file as tsc would emit it, with its source map; JSON copied. */
function emit(path) {
  const out = join(root, 'dist', path.replace(/\.ts$/, '.js'));
  mkdirSync(dirname(out), { recursive: true });
  if (path.endsWith('.json')) return copyFileSync(join(root, path), out);
  const result = transformSync(path, readFileSync(join(root, path), 'utf8'), { target: TARGET, sourcemap: true, typescript: { onlyRemoveTypeImports: true } });
  if (result.errors.length > 0) throw new Error(`${path}: ${result.errors.map((e) => e.message).join('; ')}`);
  const map = { ...result.map, file: basename(out), sources: [relative(dirname(out), join(root, path)).split(sep).join('/')] };
  writeFileSync(out, `${result.code}//# sourceMappingURL=${basename(out)}.map\n`);
  writeFileSync(`${out}.map`, JSON.stringify(map));
}

const others = Promise.all([
  run('typescript/bin/tsc', ['-p', 'tsconfig.electron.json']),
  run('typescript/bin/tsc', ['-p', 'tsconfig.client.json']),
  run('vite/bin/vite.js', ['build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn']),
]);
for (const dir of SOURCES) for (const path of sourcesIn(dir)) emit(path);
await others;
