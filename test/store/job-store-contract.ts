/**
 * What every job store must do (the JobStore port), as one suite each implementation runs
 * with a factory of its own: test/store/sqlite-job-store.test.ts, test/store/pg-job-store.test.ts.
 * The suite's halves: job-store-queue-contract.ts, job-store-lifecycle-contract.ts.
 */
import { describe } from 'vitest';
import { storeFixture, type StoreUnderTest } from './job-store-fixture.js';
import { lifecycleContract } from './job-store-lifecycle-contract.js';
import { queueContract } from './job-store-queue-contract.js';

export type { StoreUnderTest } from './job-store-fixture.js';

export function jobStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`${name} job store (the JobStore contract)`, () => {
    const f = storeFixture(makeStore);
    queueContract(f);
    lifecycleContract(f);
  });
}
