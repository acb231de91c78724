/**
 * Whether dist/ was built from the sources as they are now. A build writes a stamp in dist/
 * with a hash of every input file; `scripts/build.js` skips a build the stamp shows up to
 * date, and `bin/chatbridge.js` says when the app's sources changed since the last one.
 *
 * Plain JavaScript: it runs before anything is compiled.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** What the build reads: the compiled folders, the dashboard's and compilers' settings, the locked dependencies. */
export const INPUTS = [
  'main',
  'agents',
  'preload',
  'renderer',
  'test',
  'bench',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.client.json',
  'tsconfig.electron.json',
  'scripts/compile.js',
];

/** Inputs only the tests and benches run from dist/: a change there leaves the app itself as built. */
export const TEST_ONLY_INPUTS = ['test', 'bench'];

/** Files every complete build leaves: a dist/ without them was cleaned or half built. */
export const OUTPUTS = ['dist/main/cli/main.js', 'dist/renderer/index.html'];

export const STAMP = 'dist/.build-stamp.json';

/**
 * A file changed after its hash was taken may still carry an older mtime on file systems with
 * coarse timestamps; files touched this close before the stamp are hashed again.
 */
const MTIME_SLACK_MS = 2_000;

/** The input files under `root` (of `inputs`), as paths relative to it with `/` separators, sorted. */
export function listInputs(root, inputs = INPUTS) {
  const files = [];
  const walk = (path) => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) if (name !== 'node_modules') walk(join(path, name));
    } else if (stat.isFile()) {
      files.push({ path: relative(root, path).split(sep).join('/'), mtimeMs: stat.mtimeMs });
    }
  };
  for (const input of inputs) walk(join(root, input));
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function hashFile(root, path) {
  return createHash('sha256').update(readFileSync(join(root, path))).digest('hex');
}

/**
 * The hashes to stamp a build with, taken before it starts: a file edited while it runs
 * then differs from its stamp, and the next check builds again.
 */
export function takeStamp(root) {
  const takenAt = Date.now();
  const files = {};
  for (const { path } of listInputs(root)) files[path] = hashFile(root, path);
  return { takenAt, files };
}

export function writeStamp(root, stamp) {
  writeFileSync(join(root, STAMP), JSON.stringify(stamp));
}

function readStamp(root) {
  try {
    const stamp = JSON.parse(readFileSync(join(root, STAMP), 'utf8'));
    return typeof stamp?.takenAt === 'number' && stamp.files && typeof stamp.files === 'object' ? stamp : null;
  } catch {
    return null;
  }
}

/**
 * `missing` (no complete build, or no stamp), `stale` (with the inputs added, changed or
 * removed since the stamp) or `fresh`. Only files modified since the stamp are read, so a
 * check of an unchanged tree costs a directory walk. With `appOnly`, of the app's inputs
 * alone: every command of the CLI checks, and the tests' and benches' 340 files were 43 % of
 * its walk.
 */
export function buildState(root, { appOnly = false } = {}) {
  const stamp = readStamp(root);
  if (!stamp || OUTPUTS.some((output) => !existsSync(join(root, output)))) return { state: 'missing', changed: [] };
  const inputs = appOnly ? INPUTS.filter(isAppInput) : INPUTS;
  const changed = [];
  const seen = new Set();
  for (const { path, mtimeMs } of listInputs(root, inputs)) {
    seen.add(path);
    const stamped = stamp.files[path];
    if (stamped === undefined) changed.push(path);
    else if (mtimeMs >= stamp.takenAt - MTIME_SLACK_MS && hashFile(root, path) !== stamped) changed.push(path);
  }
  for (const path of Object.keys(stamp.files)) if (!seen.has(path) && (!appOnly || isAppInput(path))) changed.push(path);
  return changed.length ? { state: 'stale', changed: changed.sort() } : { state: 'fresh', changed };
}

/** Whether a changed input is one the app is built from (not only the tests or benches). */
export function isAppInput(path) {
  return !TEST_ONLY_INPUTS.some((input) => path === input || path.startsWith(`${input}/`));
}
