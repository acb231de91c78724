import { defineConfig } from 'vitest/config';
import base, { BREADTH, PROCESSES, reporters, TYPE_CHECK } from './vitest.config.js';

// npm test's projects are its own: these files make two of their own, below.
const { projects: _projects, ...shared } = base.test!;

/**
 * The second half of `npm run test:full` (vitest.config.ts says what and why): the product as
 * processes first, before the browsers load the machine (some of them time what they spawn),
 * with the type check beside them (one core for two minutes, while they mostly wait on their
 * processes: after them, it held the browser files back that long), then the breadth of the
 * browser matrix; three files at a time in shared processes, as npm test runs its own, in its
 * order (LongestKindsFirst).
 */
export default defineConfig({
  ...base,
  test: {
    ...shared,
    // npm test's exclude names these very files.
    exclude: [],
    reporters: reporters('breadth'),
    projects: [
      {
        extends: true,
        test: { name: 'processes', include: [TYPE_CHECK, ...PROCESSES], isolate: false, globalSetup: ['test/support/postgres-global-setup.ts'], sequence: { groupOrder: 0 }, maxWorkers: 3 },
      },
      {
        extends: true,
        test: { name: 'browsers', include: BREADTH, isolate: false, globalSetup: ['test/support/postgres-global-setup.ts'], sequence: { groupOrder: 1 }, maxWorkers: 3 },
      },
    ],
  },
});
