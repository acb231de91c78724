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
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
