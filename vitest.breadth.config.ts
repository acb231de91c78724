import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base, { BREADTH, PROCESSES, reporters } from './vitest.config.js';

// npm test's projects are its own: these files make two of their own, below.
const { projects: _projects, ...shared } = base.test!;

/**
 * vitest's order, with the type check and the drift sample first. Without a record of past
 * durations (a fresh clone, as CI's) vitest runs the biggest files first, and these are the
 * smallest: the drift sample's are three lines each (running suites made in drift-sample.ts),
 * and they started last and the breadth ended with them (126-144 s in a fresh clone, 100 s in
 * a working tree); the type check, last, ended it 30 s after the browser files.
 */
class SmallLongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => (file.moduleId.endsWith('/typecheck.test.ts') ? 0 : /drift-sample-\d\.test\.ts$/.test(file.moduleId) ? 1 : 2);
    // A stable sort: vitest's order within each rank.
    return sorted.map((file, i) => ({ file, i })).sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i).map(({ file }) => file);
  }
}

/**
 * The second half of `npm run test:full` (vitest.config.ts says what and why): the product as
 * processes first, before the browsers load the machine (some of them time what they spawn),
 * then the breadth of the browser matrix; three files at a time in shared processes, as npm
 * test runs its own.
 */
export default defineConfig({
  ...base,
  test: {
    ...shared,
    // npm test's exclude names these very files.
    exclude: [],
    reporters: reporters('breadth'),
    sequence: { sequencer: SmallLongFilesFirst },
    projects: [
      {
        extends: true,
        test: { name: 'processes', include: PROCESSES, isolate: false, globalSetup: ['test/support/postgres-global-setup.ts'], sequence: { groupOrder: 0 }, maxWorkers: 3 },
      },
      {
        extends: true,
        test: { name: 'browsers', include: BREADTH, isolate: false, globalSetup: ['test/support/postgres-global-setup.ts'], sequence: { groupOrder: 1 }, maxWorkers: 3 },
      },
    ],
  },
});
