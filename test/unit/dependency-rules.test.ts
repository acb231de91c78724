/**
 * The direction of imports (design.md), enforced: `.dependency-cruiser.cjs` names the rules
 * and this test fails, listing every wrong import or circle, when one is broken. Each rule
 * is also shown to bite: an import planted in a throwaway tree of the same layout breaks it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';

const rules = createRequire(`${PACKAGE_ROOT}/`)('./.dependency-cruiser.cjs');
const SOURCES = ['main', 'agents', 'preload', 'renderer'];

async function cruised(baseDir: string, tsConfig?: string): Promise<ICruiseResult> {
  const options = { ...rules.options, tsConfig: tsConfig ? { fileName: tsConfig } : undefined, baseDir, validate: true, ruleSet: rules };
  const result = await cruise(SOURCES, options);
  return result.output as ICruiseResult;
}

/** The rooms of the app: main/<folder> and agents/<folder> (main/storage with both its engines). */
const room = (path: string) => /^(main|agents)\/[^/]+(?=\/)/.exec(path)?.[0] ?? null;

/** Circles between rooms: the strongly connected groups of the room-to-room import graph. */
function roomCircles(output: ICruiseResult): string[][] {
  const next = new Map<string, Set<string>>();
  for (const m of output.modules) {
    const from = room(m.source);
    for (const d of m.dependencies) {
      const to = room(d.resolved);
      if (from && to && from !== to) next.set(from, (next.get(from) ?? new Set()).add(to));
    }
  }
  // Tarjan's algorithm.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do group.push((w = stack.pop()!));
      while (w !== v);
      if (group.length > 1) circles.push(group.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return circles;
}

describe('dependency rules', () => {
  it('holds every import to the layering of design.md, with no circles between modules or between rooms', async () => {
    const output = await cruised(PACKAGE_ROOT, join(PACKAGE_ROOT, 'tsconfig.json'));
    const found: IViolation[] = output.summary.violations;
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
    expect(roomCircles(output)).toEqual([]);
  }, 60_000);

  describe('each rule bites on a planted import', () => {
    const trees: string[] = [];
    afterAll(() => trees.forEach((t) => rmSync(t, { recursive: true, force: true })));

    /** A throwaway tree where `from` imports `to` (both made), cruised with the project's rules. */
    async function plant(from: string, to: string): Promise<ICruiseResult> {
      const base = mkdtempSync(join(tmpdir(), 'cb-rules-'));
      trees.push(base);
      for (const dir of SOURCES) mkdirSync(join(base, dir), { recursive: true });
      for (const file of [from, to]) mkdirSync(join(base, dirname(file)), { recursive: true });
      const aPackage = to.startsWith('node_modules/');
      const path = relative(dirname(from), to).replace(/\.ts$/, '');
      const target = aPackage ? to.split('/')[1]! : path.startsWith('.') ? path : `./${path}`;
      if (aPackage) writeFileSync(join(base, dirname(to), 'package.json'), JSON.stringify({ name: target, main: 'index.js' }));
      writeFileSync(join(base, to), 'export const planted = 1;\n');
      writeFileSync(join(base, from), `import { planted } from '${target}';\nexport const uses = planted;\n`);
      return cruised(base);
    }

    const plants: [rule: string, from: string, to: string][] = [
      ['storage-has-one-door', 'main/service/service.ts', 'main/storage/sqlite/job-store.ts'],
      ['storage-has-one-door', 'main/cli/serve.ts', 'main/storage/postgres/postgres-storage.ts'],
      ['only-storage-loads-the-database-drivers', 'main/queue/scheduler.ts', 'node_modules/pg/index.js'],
      ['only-storage-loads-the-database-drivers', 'main/api/server.ts', 'node_modules/better-sqlite3/index.js'],
      ['storage-knows-the-ports-not-the-application', 'main/storage/postgres/job-store.ts', 'main/service/completions.ts'],
      ['storage-knows-the-ports-not-the-application', 'main/storage/sqlite/db.ts', 'main/api/schemas.ts'],
      ['sqlite-does-not-know-postgres', 'main/storage/sqlite/job-store.ts', 'main/storage/postgres/connect.ts'],
      ['core-imports-nothing-of-the-project', 'main/core/jobs.ts', 'main/queue/state-machine.ts'],
      ['agents-import-only-the-core-of-main', 'agents/runtime/browser-agent.ts', 'main/storage/storage.ts'],
      ['the-queue-does-not-import-the-http-layer', 'main/queue/scheduler.ts', 'main/api/schemas.ts'],
      ['the-http-layer-does-not-import-the-queue', 'main/api/server.ts', 'main/queue/scheduler.ts'],
    ];
    it.each(plants)('%s: %s → %s', async (rule, from, to) => {
      const { summary } = await plant(from, to);
      expect(summary.violations.map((v) => v.rule.name)).toContain(rule);
    });

    it('a circle between two rooms, through files that import no circle of modules', async () => {
      const base = mkdtempSync(join(tmpdir(), 'cb-rules-'));
      trees.push(base);
      const files: Record<string, string> = {
        'main/queue/a.ts': "import { b } from '../webhooks/b';\nexport const a = b;\n",
        'main/webhooks/b.ts': 'export const b = 1;\n',
        'main/webhooks/c.ts': "import { d } from '../queue/d';\nexport const c = d;\n",
        'main/queue/d.ts': 'export const d = 1;\n',
      };
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(join(base, dirname(file)), { recursive: true });
        writeFileSync(join(base, file), text);
      }
      for (const dir of SOURCES) mkdirSync(join(base, dir), { recursive: true });
      const output = await cruised(base);
      expect(output.summary.violations).toEqual([]);
      expect(roomCircles(output)).toEqual([['main/queue', 'main/webhooks']]);
    });
  });
});
