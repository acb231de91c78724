/**
 * The direction of imports (design.md), enforced: `.dependency-cruiser.cjs` holds the room
 * map and the rules beside it, and this test fails, listing every wrong import or circle,
 * when one is broken. Each rule is also shown to bite: imports planted in one throwaway tree
 * of the same layout break every room's rule and every other rule, and what the map allows
 * (the composition roots, type-only imports) breaks none.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

    /** An import planted in a throwaway tree of the project's layout: runtime, or `import type`. */
    interface Plant {
      from: string;
      to: string;
      typeOnly?: boolean;
    }

    /** What `plant.from` writes: a path, or a package's name for a target under node_modules/. */
    function specifier({ from, to }: Plant): string {
      if (to.startsWith('node_modules/')) return to.split('/')[1]!;
      const path = relative(dirname(from), to).replace(/\.ts$/, '.js');
      return path.startsWith('.') ? path : `./${path}`;
    }

    /** One tree holding every plant, cruised once with the project's rules; a file may hold several. */
    async function cruisePlants(plants: Plant[]): Promise<IViolation[]> {
      const base = mkdtempSync(join(tmpdir(), 'cb-rules-'));
      trees.push(base);
      for (const dir of SOURCES) mkdirSync(join(base, dir), { recursive: true });
      const imports = new Map<string, string[]>();
      for (const plant of plants) {
        const lines = imports.get(plant.from) ?? [];
        const keyword = plant.typeOnly ? 'import type' : 'import';
        imports.set(plant.from, [...lines, `${keyword} { planted as planted${lines.length} } from '${specifier(plant)}';`]);
        if (!imports.has(plant.to)) imports.set(plant.to, []);
      }
      for (const [file, lines] of imports) {
        mkdirSync(join(base, dirname(file)), { recursive: true });
        if (file.startsWith('node_modules/')) writeFileSync(join(base, dirname(file), 'package.json'), JSON.stringify({ name: file.split('/')[1], main: 'index.js' }));
        writeFileSync(join(base, file), [...lines, 'export const planted = 1;', ''].join('\n'));
      }
      return (await cruised(base)).summary.violations;
    }

    /** The rules each plant broke. */
    const broken = (violations: IViolation[], { from, to }: Plant) =>
      violations.filter((v) => v.from === from && v.to === to).map((v) => v.rule.name);

    const room = (rule: { from: { path: string } }) => rule.from.path.replace(/^\^|\/$/g, '');

    /**
     * For every room of the map, an import of a room it does not list: the first room of the
     * map outside its list, as its rule reads it.
     */
    const roomRules = (rules.forbidden as { name: string; from: { path: string }; to: { pathNot: string } }[]).filter((r) => r.name.startsWith('room:'));
    const mapPlants: [string, Plant][] = roomRules.map((rule) => {
      const outside = roomRules.map((r) => `${room(r)}/planted-target.ts`).find((to) => !new RegExp(rule.to.pathNot).test(to))!;
      return [rule.name, { from: `${room(rule)}/planted-by-map.ts`, to: outside }];
    });

    /** The edges the design names, and each rule that is not the map. */
    const named: [rule: string, plant: Plant][] = [
      ['room:main/service', { from: 'main/service/service.ts', to: 'main/api/server.ts' }],
      ['room:main/service', { from: 'main/service/admin/jobs.ts', to: 'main/api/routes/completions.ts', typeOnly: true }],
      ['room:main/contract', { from: 'main/contract/profile.ts', to: 'main/keys/key-store.ts' }],
      ['room:main/core', { from: 'main/core/jobs.ts', to: 'main/queue/state-machine.ts' }],
      ['room:main/queue', { from: 'main/queue/scheduler.ts', to: 'main/api/schemas.ts' }],
      ['room:main/api', { from: 'main/api/server.ts', to: 'main/queue/scheduler.ts' }],
      ['room:main/api', { from: 'main/api/routes/completions.ts', to: 'main/service/completions.ts' }],
      ['room:main/storage', { from: 'main/storage/postgres/job-store.ts', to: 'main/service/completions.ts' }],
      ['room:main/webhooks', { from: 'main/webhooks/sender.ts', to: 'main/contract/webhook-body.ts' }],
      ['room:main/mcp', { from: 'main/mcp/tools.ts', to: 'main/api/routes/account.ts' }],
      ['room:main/cli', { from: 'main/cli/status.ts', to: 'agents/runtime/agent-runtime.ts' }],
      ['room:agents/runtime', { from: 'agents/runtime/browser-agent.ts', to: 'main/storage/storage.ts' }],
      ['room:agents/providers', { from: 'agents/providers/flow.ts', to: 'agents/runtime/pairing.ts' }],
      ['room:renderer', { from: 'renderer/src/api.ts', to: 'main/service/admin/index.ts', typeOnly: true }],
      ['root:main/cli/serve.ts', { from: 'main/cli/serve.ts', to: 'main/logs/log-book.ts' }],
      ['every-room-is-on-the-map', { from: 'main/new-room/thing.ts', to: 'main/core/ids.ts' }],
      ['page-helpers-import-types-only', { from: 'agents/providers/page-helpers/turns.ts', to: 'agents/providers/page-helpers/types.ts' }],
      ['page-helpers-import-types-only', { from: 'agents/providers/page-helpers/cues.ts', to: 'agents/providers/cues.ts' }],
      ['simulator-pages-are-browser-code', { from: 'agents/simulator/client/app.ts', to: 'agents/simulator/site-state.ts' }],
      ['simulator-pages-are-browser-code', { from: 'agents/simulator/client/dom.ts', to: 'node_modules/left-pad/index.js' }],
      ['storage-has-one-door', { from: 'main/service/retention.ts', to: 'main/storage/sqlite/job-store.ts' }],
      ['storage-has-one-door', { from: 'main/cli/account.ts', to: 'main/storage/postgres/postgres-storage.ts' }],
      ['sqlite-does-not-know-postgres', { from: 'main/storage/sqlite/db.ts', to: 'main/storage/postgres/connect.ts' }],
      ['only-storage-loads-the-database-drivers', { from: 'main/queue/queue-order.ts', to: 'node_modules/pg/index.js' }],
      ['only-storage-loads-the-database-drivers', { from: 'main/api/auth.ts', to: 'node_modules/better-sqlite3/index.js' }],
      ['only-the-http-layer-runs-fastify', { from: 'main/service/status-report.ts', to: 'node_modules/fastify/index.js' }],
      ['only-the-shell-imports-electron', { from: 'main/service/first-run.ts', to: 'node_modules/electron/index.js' }],
      ['the-client-ships-alone', { from: 'main/client/client.ts', to: 'main/contract/schemas.ts' }],
      ['the-client-has-no-package-dependencies', { from: 'main/client/http.ts', to: 'node_modules/undici/index.js' }],
    ];

    /** What the map lets through: these plants break no rule. */
    const allowed: [what: string, plant: Plant][] = [
      ['the electron root builds the HTTP layer', { from: 'main/electron/app.ts', to: 'main/api/holds.ts' }],
      ['the serve root starts the agents', { from: 'main/cli/serve.ts', to: 'agents/runtime/runtime-control.ts' }],
      ['the client takes the contract\'s types', { from: 'main/client/types.ts', to: 'main/contract/schemas.ts', typeOnly: true }],
      ['the page helpers take types', { from: 'agents/providers/page-helpers/watch.ts', to: 'agents/providers/site.ts', typeOnly: true }],
      ['the simulator\'s pages take their own folder', { from: 'agents/simulator/client/skin.ts', to: 'agents/simulator/client/markdown.ts' }],
      ['the service names the server by its type', { from: 'main/service/http-layer.ts', to: 'node_modules/fastify/index.js', typeOnly: true }],
    ];

    /** A circle of two modules in one room: the rule names one of its two edges. */
    const circle: Plant[] = [
      { from: 'main/keys/planted-one.ts', to: 'main/keys/planted-two.ts' },
      { from: 'main/keys/planted-two.ts', to: 'main/keys/planted-one.ts' },
    ];

    let violations: IViolation[];
    beforeAll(async () => {
      violations = await cruisePlants([...[...mapPlants, ...named, ...allowed].map(([, plant]) => plant), ...circle]);
    }, 60_000);

    it('no-circular: a circle of two modules', () => {
      expect(circle.flatMap((plant) => broken(violations, plant))).toContain('no-circular');
    });

    it('the map names every room, and each room refuses a room it does not list', () => {
      expect(roomRules.length).toBeGreaterThanOrEqual(20);
      for (const [rule, plant] of mapPlants) expect(broken(violations, plant), `${plant.from} → ${plant.to}`).toContain(rule);
    });

    it.each(named)('%s: %o', (rule, plant) => {
      expect(broken(violations, plant)).toContain(rule);
    });

    it.each(allowed)('%s', (_what, plant) => {
      expect(broken(violations, plant)).toEqual([]);
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
      // The map refuses the edge that closes it, and the circle is found besides.
      expect(output.summary.violations.map((v) => `${v.rule.name}: ${v.from}`)).toEqual(['room:main/queue: main/queue/a.ts']);
      expect(roomCircles(output)).toEqual([['main/queue', 'main/webhooks']]);
    });
  });
});
