import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base, { BREADTH, reporters } from './vitest.config.js';

// npm test's split of files into projects does not apply here: these are browser files and the type check.
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
 * The second half of `npm run test:full`: each provider's other layouts and the drift sample
 * (BREADTH in vitest.config.ts), three files at a time in shared processes, as npm test runs
 * its browser files.
 */
export default defineConfig({
  ...base,
  test: { ...shared, include: BREADTH, exclude: [], isolate: false, maxWorkers: 3, reporters: reporters('breadth'), sequence: { sequencer: SmallLongFilesFirst } },
});
