/**
 * The flow reads no clock and sleeps on no timer of its own (design.md: the flow has "one
 * context, one way to wait"): outside the simulator, `agents/` has no `Date.now()`, no
 * `new Date()` and no `waitForTimeout` (a fixed wait Playwright reserves for debugging); its
 * waits go through flow-context.ts, whose clock a test can move. In-page code keeps the page's
 * own `performance.now()`. Also: no file there over 450 lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';

const AGENTS = join(PACKAGE_ROOT, 'agents');
/** The simulator plays the sites, on their own time. */
const EXEMPT = [join(AGENTS, 'simulator')];
const MOST_LINES = 450;

const WALL_READS = /\bDate\.now\s*\(|\bnew\s+Date\s*\(\s*\)|\.waitForTimeout\s*\(/g;

function sources(dir: string): string[] {
  if (EXEMPT.includes(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

function wallReads(text: string): string[] {
  return text.split('\n').flatMap((line, i) => (line.match(WALL_READS) ? [`${i + 1}: ${line.trim()}`] : []));
}

describe('agents/ outside the simulator', () => {
  const files = sources(AGENTS);

  it('finds the files it looks at, and would see a wall read or a fixed wait planted in one', () => {
    expect(files.length).toBeGreaterThan(30);
    expect(files.some((f) => f.endsWith('variant-choice.ts'))).toBe(true);
    expect(files.some((f) => f.includes(`${join('agents', 'simulator')}`))).toBe(false);
    for (const planted of ['const t = Date.now();', 'const at = new Date();', 'await page.waitForTimeout(250);', 'Date.now ()']) {
      expect(wallReads(planted), planted).toHaveLength(1);
    }
    // A time given, not read: the notice's reset time from the agent's clock.
    expect(wallReads('const at = new Date(now);')).toEqual([]);
  });

  it('reads no wall clock and waits no fixed time', () => {
    const found = files.flatMap((file) => wallReads(readFileSync(file, 'utf8')).map((hit) => `${relative(PACKAGE_ROOT, file)}:${hit}`));
    expect(found).toEqual([]);
  });

  it(`has no file over ${MOST_LINES} lines`, () => {
    const long = files.map((file) => ({ file: relative(PACKAGE_ROOT, file), lines: readFileSync(file, 'utf8').split('\n').length })).filter((f) => f.lines > MOST_LINES);
    expect(long).toEqual([]);
  });
});
