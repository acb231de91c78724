import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:drift`: the provider suite for every layout and every drift kind
 * (test/drift/). One file at a time: each runs a real browser per suite.
 */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/drift/**/*.test.ts'], exclude: [], fileParallelism: false },
});
