import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  // The dashboard's component tests are TSX (React 17+ JSX runtime, as in renderer/vite.config.ts).
  oxc: { jsx: { runtime: 'automatic' } },
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    // The full drift matrix runs on its own (npm run test:drift, vitest.drift.config.ts);
    // npm test runs a sample of it (test/e2e/drift-sample.test.ts).
    exclude: [...configDefaults.exclude, 'test/drift/**'],
    // Agents pause between jobs in a real install (settings-store.ts); the suite runs at full
    // speed, in its own processes and the services it spawns alike. Tests of the pause set it.
    env: { CHATBRIDGE_PAUSE_MS: '0' },
    // Two files at a time, also on a 2-core machine: a browser file spends most of its time
    // waiting on its pages and simulated answers. Measured on the shared 2-core machine, the
    // whole suite took 476 and 545 s with two workers against 700 s with one (each file in its
    // own data folder, on its own ports).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
