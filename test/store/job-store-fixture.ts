/**
 * One store on an empty database per test, for the JobStore contract's suites
 * (job-store-contract.ts): opened before each test with the implementation's factory, its
 * events recorded, closed after.
 */
import { afterEach, beforeEach } from 'vitest';
import type { AttemptEnd, JobRow, NewJob, StoreEvent, SubmitRequest } from '../../main/core/jobs.js';
import type { JobStore } from '../../main/queue/job-store.js';
import { newJob, T0 } from '../support/new-job.js';

/** A store on an empty database, with what the suite must see beyond the port. */
export interface StoreUnderTest {
  store: JobStore;
  /** The job's webhook outbox row, as the store wrote it. */
  delivery(jobId: string): Promise<{ origin: string; state: string; round: number; next_at: number | null } | undefined>;
  /** How many rows of bytes (chunks) of the job's files the database holds, read beside the port. */
  fileRows(jobId: string): Promise<number>;
  /** Adds an account, disabled at `at` (accounts are another store's rows). */
  addDisabledAccount(id: string, at: number): Promise<void>;
  /** Closes what the factory opened besides the store (the store itself is closed by the suite). */
  close?(): Promise<void>;
}

export const HOUR = 3_600_000;
export const DAY = 86_400_000;
export const TTL = DAY;

export const succeeded = (text = '4', ref = 'cv_1', address = `https://chat.example/c/${ref}`): AttemptEnd => ({
  outcome: 'succeeded',
  response: text,
  conversationRef: ref,
  conversationAddress: address,
});
export const providerError: AttemptEnd = { outcome: 'failed', errorCode: 'PROVIDER_ERROR', detail: 'Something went wrong' };

export interface StoreFixture {
  readonly t: StoreUnderTest;
  readonly store: JobStore;
  /** What the store told its listeners since the test began (or since a test emptied it). */
  readonly events: StoreEvent[];
  /** A created job (the test fails on any other outcome). */
  submit(overrides?: Partial<NewJob>, rest?: Omit<SubmitRequest, 'job'>): Promise<JobRow>;
  claim(job: JobRow, agentId?: string, provider?: string): { jobId: string; agentId: string; provider: string };
  /** A job dispatched to agt_a. */
  running(overrides?: Partial<NewJob>, now?: number): Promise<JobRow>;
}

export function storeFixture(makeStore: () => Promise<StoreUnderTest>): StoreFixture {
  let t: StoreUnderTest;
  let store: JobStore;
  let events: StoreEvent[];

  beforeEach(async () => {
    t = await makeStore();
    store = t.store;
    events = [];
    store.onEvent((e) => events.push(e));
  });
  afterEach(async () => {
    await store.close();
    await t.close?.();
  });

  const submit = async (overrides: Partial<NewJob> = {}, rest: Omit<SubmitRequest, 'job'> = { queuedLimit: 1000 }) => {
    const result = await store.submit({ job: newJob(overrides), ...rest });
    if (result.kind !== 'created') throw new Error(`not created: ${result.kind}`);
    return result.job;
  };
  const claim = (job: JobRow, agentId = 'agt_a', provider = 'chatgpt') => ({ jobId: job.id, agentId, provider });
  const running = async (overrides: Partial<NewJob> = {}, now = T0 + 1000) => {
    const job = await submit(overrides);
    const [dispatched] = await store.dispatch([claim(job)], now);
    return dispatched!;
  };
  return {
    get t() {
      return t;
    },
    get store() {
      return store;
    },
    get events() {
      return events;
    },
    submit,
    claim,
    running,
  };
}
