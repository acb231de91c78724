import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// npm test's split of files into projects does not apply here: every drift file runs alone.
const { projects: _projects, ...shared } = base.test!;

/**
 * `npm run test:drift`: the provider suite for every layout and every drift kind
 * (test/drift/). One file at a time: each runs a real browser per suite.
 */
export default defineConfig({
  ...base,
  test: { ...shared, include: ['test/drift/**/*.test.ts'], exclude: [], fileParallelism: false },
});
