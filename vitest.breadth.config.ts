import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base, { BREADTH, reporters } from './vitest.config.js';

// npm test's split of files into projects does not apply here: these are browser files and the type check.
const { projects: _projects, ...shared } = base.test!;

/**
 * vitest's order, with the drift sample first. Without a record of past durations (a fresh
 * clone, as CI's) vitest runs the biggest files first, and the drift sample's are the
 * smallest (three lines each, running suites made in drift-sample.ts): they started last,
 * and the breadth ended with them (126-144 s in a fresh clone, 100 s in a working tree).
 */
class DriftSampleFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const sample = (file: TestSpecification) => /drift-sample-\d\.test\.ts$/.test(file.moduleId);
    return [...sorted.filter(sample), ...sorted.filter((file) => !sample(file))];
  }
}

/**
 * The second half of `npm run test:full`: each provider's other layouts and the drift sample
 * (BREADTH in vitest.config.ts), three files at a time in shared processes, as npm test runs
 * its browser files.
 */
export default defineConfig({
  ...base,
  test: { ...shared, include: BREADTH, exclude: [], isolate: false, maxWorkers: 3, reporters: reporters('breadth'), sequence: { sequencer: DriftSampleFirst } },
});
