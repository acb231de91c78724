/**
 * The direction of imports (design.md "The layout"), checked by `npm test`
 * (test/unit/dependency-rules.test.ts) and by `npx depcruise main agents preload renderer`.
 * Paths are relative to the package root.
 */

/**
 * The room map: each room of the project and the rooms it may import besides itself (a path
 * ending in .ts is one file of a room). A file in a room that is not listed fails: a new
 * room must say here what it may import. Packages are left to the rules further down.
 */
const ROOMS = {
  // The kernel both sides depend on.
  'main/core': [],
  // What the API promises, below HTTP and the application.
  'main/contract': ['main/core'],
  'main/diagnostics': ['main/core'],
  'main/settings': ['main/core', 'main/contract'],
  'main/keys': ['main/core', 'main/contract'],
  'main/queue': ['main/core', 'main/contract', 'main/settings'],
  'main/webhooks': ['main/core', 'main/queue'],
  'main/logs': ['main/core', 'main/contract', 'main/queue', 'main/webhooks'],
  'main/metrics': ['main/core', 'main/queue', 'main/settings', 'main/webhooks'],
  // Implements the feature rooms' ports on an engine; the application is built on it, never the reverse.
  'main/storage': ['main/core', 'main/contract', 'main/keys', 'main/queue', 'main/settings', 'main/webhooks'],
  // The application: it is handed its HTTP layer (service/http-layer.ts) and imports none of it.
  'main/service': ['main/core', 'main/contract', 'main/diagnostics', 'main/keys', 'main/logs', 'main/metrics', 'main/queue', 'main/settings', 'main/storage', 'main/webhooks'],
  // HTTP only: it reaches jobs and the dashboard's consoles through the ports it declares, which the service answers.
  'main/api': ['main/core', 'main/contract', 'main/diagnostics', 'main/keys', 'main/metrics', 'main/webhooks'],
  // Published as chatbridge/client: it types its messages with the contract's schemas (type-only, see below).
  'main/client': ['main/contract/schemas.ts'],
  'main/mcp': ['main/core', 'main/client'],
  'main/electron': ['main/core', 'main/service'],
  // The simulator's drift kinds are words only: the help names them.
  'main/cli': [
    'main/core', 'main/contract', 'main/client', 'main/diagnostics', 'main/electron', 'main/keys', 'main/mcp', 'main/queue',
    'main/service', 'main/settings', 'main/storage', 'main/webhooks', 'agents/simulator/client/drift-kinds.ts',
  ],
  // The browser agents know the kernel of main/, never the queue, the API or the shell.
  'agents/providers': ['main/core'],
  'agents/browser': ['main/core', 'agents/providers'],
  'agents/runtime': ['main/core', 'agents/browser', 'agents/providers'],
  'agents/simulator': ['main/core', 'agents/browser', 'agents/providers', 'agents/runtime'],
  // The desktop app's bridge, typed by the shell it talks to.
  preload: ['main/electron'],
  // The dashboard runs in a sandboxed page: types from the contract and the kernel, the bridge's from preload/.
  renderer: ['main/contract', 'main/core', 'preload'],
};

/** The two files that start everything: besides their room's list, they build the HTTP layer and start the agents. */
const COMPOSITION_ROOTS = { 'main/cli/serve.ts': ['main/api', 'agents'], 'main/electron/app.ts': ['main/api', 'agents'] };

const PROJECT = '^(main|agents|preload|renderer|build|bench|test|bin|scripts)/';
const escape = (path) => path.replace(/[.]/g, '[.]');
/** A room (every file under it) or one file, as a path pattern. */
const place = (path) => (path.endsWith('.ts') ? `^${escape(path)}$` : `^${escape(path)}/`);
const anyOf = (paths) => paths.map(place).join('|');

/** A room imports itself and what the map lists, nothing else of the project. */
function roomRule(room, may) {
  const roots = Object.keys(COMPOSITION_ROOTS).filter((root) => root.startsWith(`${room}/`));
  return {
    name: `room:${room}`,
    severity: 'error',
    comment: `${room}/ imports ${may.length ? may.join(', ') : 'nothing of the project'} and itself only (the room map).`,
    from: { path: place(room), ...(roots.length ? { pathNot: anyOf(roots) } : {}) },
    to: { path: PROJECT, pathNot: anyOf([room, ...may]) },
  };
}

function rootRule(root, extra) {
  const room = Object.keys(ROOMS).find((r) => root.startsWith(`${r}/`));
  return {
    name: `root:${root}`,
    severity: 'error',
    comment: `${root} starts everything: it imports what ${room}/ may, and ${extra.join(', ')}.`,
    from: { path: place(root) },
    to: { path: PROJECT, pathNot: anyOf([room, ...ROOMS[room], ...extra]) },
  };
}

module.exports = {
  forbidden: [
    ...Object.entries(ROOMS).map(([room, may]) => roomRule(room, may)),
    ...Object.entries(COMPOSITION_ROOTS).map(([root, extra]) => rootRule(root, extra)),
    {
      name: 'every-room-is-on-the-map',
      severity: 'error',
      comment: 'A folder of main/ or agents/ (or a file at their top) that the room map does not list: add it to ROOMS with what it may import.',
      from: { path: '^(main|agents)/', pathNot: anyOf(Object.keys(ROOMS)) },
      to: {},
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle of imports makes both ends impossible to change alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'page-helpers-import-types-only',
      severity: 'error',
      comment:
        'agents/providers/page-helpers/ runs inside the provider\'s page, each module serialised with Function.prototype.toString (page-helpers.ts): nothing it imports exists there, so it imports types only.',
      from: { path: '^agents/providers/page-helpers/' },
      to: { dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'simulator-pages-are-browser-code',
      severity: 'error',
      comment:
        'agents/simulator/client/ is served to the browser as the compiler emits it, module by module (site-server.ts): at run time it imports its own folder only, no package and no Node built-in.',
      from: { path: '^agents/simulator/client/' },
      to: { pathNot: '^agents/simulator/client/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'storage-has-one-door',
      severity: 'error',
      comment: 'Outside main/storage/, storage is opened and typed through main/storage/storage.ts only: no one else knows which engine holds the data.',
      from: { path: '^main/', pathNot: '^main/storage/' },
      to: { path: '^main/storage/', pathNot: '^main/storage/storage[.]ts$' },
    },
    {
      name: 'sqlite-does-not-know-postgres',
      severity: 'error',
      comment: 'The data dir engine stands alone (the desktop app never loads pg); the PostgreSQL assembly may use the data dir for this machine own agents.',
      from: { path: '^main/storage/sqlite/' },
      to: { path: '^main/storage/postgres/' },
    },
    {
      name: 'only-storage-loads-the-database-drivers',
      severity: 'error',
      comment: 'pg and better-sqlite3 are main/storage/ business; AgentPool types the data dir table of this machine agents with better-sqlite3, which every engine keeps in the data dir.',
      from: { path: '^(main|agents)/', pathNot: '^main/storage/|^main/queue/agent-pool[.]ts$' },
      to: { path: 'node_modules/(pg|pg-[a-z-]+|better-sqlite3)/' },
    },
    {
      name: 'only-the-http-layer-runs-fastify',
      severity: 'error',
      comment: 'fastify and its plugins are main/api/ business; the service names the server it is handed by its type only.',
      from: { path: '^(main|agents)/', pathNot: '^main/api/' },
      to: { path: 'node_modules/(fastify|@fastify/[a-z-]+)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'only-the-shell-imports-electron',
      severity: 'error',
      comment: 'The service runs in plain Node; electron is imported in main/electron/ only.',
      from: { path: '^(main|agents|renderer)/', pathNot: '^main/electron/' },
      to: { path: '^electron$|node_modules/electron/' },
    },
    {
      name: 'the-client-ships-alone',
      severity: 'error',
      comment: 'main/client/ is published as chatbridge/client: at run time it loads Node built-ins and itself only.',
      from: { path: '^main/client/' },
      to: { path: PROJECT, pathNot: '^main/client/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'the-client-has-no-package-dependencies',
      severity: 'error',
      comment: 'chatbridge/client has no runtime dependencies: Node built-ins only.',
      from: { path: '^main/client/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|release)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
