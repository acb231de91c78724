/**
 * What every job store must do (the JobStore port), as one suite each implementation runs
 * with a factory of its own: test/store/sqlite-job-store.test.ts, test/store/pg-job-store.test.ts.
 * The suite's parts: job-store-queue-contract.ts, job-store-lifecycle-contract.ts, job-store-files-contract.ts.
 */
import { describe } from 'vitest';
import { storeFixture, type StoreUnderTest } from './job-store-fixture.js';
import { lifecycleContract } from './job-store-lifecycle-contract.js';
import { queueContract } from './job-store-queue-contract.js';
import { filesContract } from './job-store-files-contract.js';

export type { StoreUnderTest } from './job-store-fixture.js';

export function jobStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`${name} job store (the JobStore contract)`, () => {
    const f = storeFixture(makeStore);
    queueContract(f);
    lifecycleContract(f);
    filesContract(f);
  });
}
