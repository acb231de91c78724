import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The dashboard's component tests are TSX (React 17+ JSX runtime, as in renderer/vite.config.ts).
  oxc: { jsx: { runtime: 'automatic' } },
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
