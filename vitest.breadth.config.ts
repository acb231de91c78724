import { defineConfig } from 'vitest/config';
import base, { BREADTH, reporters } from './vitest.config.js';

// npm test's split of files into projects does not apply here: these are all browser files.
const { projects: _projects, ...shared } = base.test!;

/**
 * The second half of `npm run test:full`: each provider's other layouts and the drift sample
 * (BREADTH in vitest.config.ts), three files at a time in shared processes, as npm test runs
 * its browser files.
 */
export default defineConfig({
  ...base,
  test: { ...shared, include: BREADTH, exclude: [], isolate: false, maxWorkers: 3, reporters: reporters('breadth') },
});
