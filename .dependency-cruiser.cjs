/**
 * The direction of imports (design.md "The layout"), checked by `npm test`
 * (test/unit/dependency-rules.test.ts) and by `npx depcruise main agents preload renderer`.
 * Paths are relative to the package root.
 */
const COMPOSITION_ROOTS = '^main/(cli/serve|electron/app)[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle of imports makes both ends impossible to change alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-nothing-of-the-project',
      severity: 'error',
      comment: 'main/core/ is the kernel both sides depend on: it imports packages and itself only.',
      from: { path: '^main/core/' },
      to: { path: '^(main|agents|preload|renderer|build|bench|test|bin)/', pathNot: '^main/core/' },
    },
    {
      name: 'agents-import-only-the-core-of-main',
      severity: 'error',
      comment: 'The browser agents know the kernel, never the queue, the API or the shell.',
      from: { path: '^agents/' },
      to: { path: '^main/', pathNot: '^main/core/' },
    },
    {
      name: 'main-imports-agents-only-at-the-composition-roots',
      severity: 'error',
      comment:
        'Only main/cli/serve.ts and main/electron/app.ts start agents; everything else talks to them through main/core/. The list of the simulator drift kinds is words only: the help names them.',
      from: { path: '^main/', pathNot: COMPOSITION_ROOTS },
      to: { path: '^agents/', pathNot: '^agents/simulator/client/drift-kinds[.]ts$' },
    },
    {
      name: 'the-queue-does-not-import-the-http-layer',
      severity: 'error',
      comment: 'main/queue/ keeps jobs whoever asks; what it shares with the API (job shapes, limits, errors, timestamps) is in main/core/.',
      from: { path: '^main/queue/' },
      to: { path: '^main/api/' },
    },
    {
      name: 'the-http-layer-does-not-import-the-queue',
      severity: 'error',
      comment: 'main/api/ speaks HTTP; it reaches jobs through its CompletionsPort (main/service/completions.ts answers it) and takes their shapes from main/core/.',
      from: { path: '^main/api/' },
      to: { path: '^main/queue/' },
    },
    {
      name: 'storage-has-one-door',
      severity: 'error',
      comment: 'Outside main/storage/, storage is opened and typed through main/storage/storage.ts only: no one else knows which engine holds the data.',
      from: { path: '^main/', pathNot: '^main/storage/' },
      to: { path: '^main/storage/', pathNot: '^main/storage/storage[.]ts$' },
    },
    {
      name: 'only-storage-loads-the-database-drivers',
      severity: 'error',
      comment: 'pg and better-sqlite3 are main/storage/ business; AgentPool types the data dir table of this machine agents with better-sqlite3, which every engine keeps in the data dir.',
      from: { path: '^(main|agents)/', pathNot: '^main/storage/|^main/queue/agent-pool[.]ts$' },
      to: { path: 'node_modules/(pg|pg-[a-z-]+|better-sqlite3)/' },
    },
    {
      name: 'storage-knows-the-ports-not-the-application',
      severity: 'error',
      comment: 'main/storage/ implements the ports of the feature folders (queue, keys, settings, webhooks) on an engine; the application, the HTTP layer and the shells are built on it, never the reverse.',
      from: { path: '^main/storage/' },
      to: { path: '^main/(service|api|cli|electron|mcp|client|metrics|logs|diagnostics)/' },
    },
    {
      name: 'sqlite-does-not-know-postgres',
      severity: 'error',
      comment: 'The data dir engine stands alone (the desktop app never loads pg); the PostgreSQL assembly may use the data dir for this machine own agents.',
      from: { path: '^main/storage/sqlite/' },
      to: { path: '^main/storage/postgres/' },
    },
    {
      name: 'the-http-layer-does-not-import-the-application-layer',
      severity: 'error',
      comment:
        'main/api/ declares the ports its routes call (AgentsPort, CompletionsPort, …); main/service/ answers them and builds the server, so imports between the two go one way.',
      from: { path: '^main/api/' },
      to: { path: '^main/service/' },
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
      to: { path: '^(main|agents|preload|renderer|build|bench|test|bin)/', pathNot: '^main/client/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'the-client-takes-only-the-api-types',
      severity: 'error',
      comment: 'The client types its messages with the contract\'s schemas (type-only), and nothing else of the project.',
      from: { path: '^main/client/' },
      to: { path: '^(main|agents|preload|renderer|build|bench|test|bin)/', pathNot: '^main/(client/|contract/schemas[.]ts$)' },
    },
    {
      name: 'the-client-has-no-package-dependencies',
      severity: 'error',
      comment: 'chatbridge/client has no runtime dependencies: Node built-ins only.',
      from: { path: '^main/client/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'the-dashboard-imports-no-runtime-code',
      severity: 'error',
      comment: 'renderer/ runs in a sandboxed page: it takes types from main/contract and main/core, the bridge types from preload/, and nothing of agents/.',
      from: { path: '^renderer/' },
      to: { path: '^agents/|^main/(?!contract/|core/)' },
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
