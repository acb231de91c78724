/**
 * What every webhook outbox must do (the WebhookOutbox port), as one suite each
 * implementation runs with a factory of its own: test/store/sqlite-webhook-outbox.test.ts,
 * test/store/pg-webhook-outbox.test.ts. Deliveries come as they do in the service: the job
 * store writes them in the transaction that makes a job final.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewJob } from '../../main/core/jobs.js';
import type { JobStore } from '../../main/queue/job-store.js';
import type { AttemptResult, Lane, WebhookOutbox } from '../../main/webhooks/outbox.js';
import { ATTEMPTS_PER_ROUND } from '../../main/webhooks/schedule.js';
import { newJob, T0 as T } from '../support/new-job.js';

/** An outbox on an empty database, with the job store that fills it. */
export interface OutboxUnderTest {
  outbox: WebhookOutbox;
  store: JobStore;
  /** Closes the store and whatever else the factory opened. */
  close(): Promise<void>;
}

/** The lane of the jobs of no account (Profile F) to `origin`. */
const mine = (origin: string): Lane => ({ account: '', origin });

export function webhookOutboxContract(name: string, makeOutbox: () => Promise<OutboxUnderTest>): void {
  describe(`${name} webhook outbox (the WebhookOutbox contract)`, () => {
    let t: OutboxUnderTest;
    let outbox: WebhookOutbox;

    beforeEach(async () => {
      t = await makeOutbox();
      outbox = t.outbox;
    });
    afterEach(() => t.close());

    /** A job cancelled at `at`: final, so its delivery is due at `at`. */
    async function finalJob(at = T, overrides: Partial<NewJob> = {}): Promise<string> {
      const result = await t.store.submit({ job: newJob({ callback_url: 'https://hooks.example:8443/in?x=1', ...overrides }), queuedLimit: 1000 });
      if (result.kind !== 'created') throw new Error(result.kind);
      await t.store.cancel(result.job.id, at);
      return result.job.id;
    }
    const result = (jobId: string, round: number, startedAt: number, statusCode: number | null, error: string | null = null): AttemptResult => ({
      jobId,
      round,
      startedAt,
      durationMs: 10,
      statusCode,
      error,
    });
    const failForGood = async (id: string) => {
      for (let i = 0; i < ATTEMPTS_PER_ROUND; i++) await outbox.record(result(id, 1, T, 500));
    };

    it('holds the delivery the job store wrote, with no attempt yet', async () => {
      const id = await finalJob(T + 5);
      expect(await outbox.get(id)).toEqual({
        job_id: id,
        origin: 'https://hooks.example:8443',
        state: 'pending',
        round: 1,
        round_attempts: 0,
        next_at: T + 5,
        created_at: T + 5,
      });
      expect(await outbox.attempts(id)).toEqual([]);
      expect(await outbox.get('job_none')).toBeUndefined();
    });

    it('failures move next_at by 30 s, 5 min, 30 min, 2 h from the end of each attempt, then give up', async () => {
      const id = await finalJob();
      const expected = [T + 10 + 30_000, T + 10 + 300_000, T + 10 + 1_800_000, T + 10 + 7_200_000, null];
      for (const [i, next] of expected.entries()) {
        await outbox.record(result(id, 1, T, i % 2 ? 500 : null, i % 2 ? null : 'connect ECONNREFUSED'));
        expect(await outbox.get(id), `after attempt ${i + 1}`).toMatchObject({ round_attempts: i + 1, next_at: next, state: next === null ? 'failed' : 'pending' });
      }
      expect(await outbox.attempts(id)).toEqual(
        expected.map((_, i) => ({
          job_id: id,
          attempt: i + 1,
          round: 1,
          started_at: T,
          duration_ms: 10,
          status_code: i % 2 ? 500 : null,
          error: i % 2 ? null : 'connect ECONNREFUSED',
        })),
      );
    });

    it('a 2xx delivers; a 3xx does not', async () => {
      const a = await finalJob();
      const b = await finalJob();
      await outbox.record(result(a, 1, T, 299));
      await outbox.record(result(b, 1, T, 304));
      expect(await outbox.get(a)).toMatchObject({ state: 'delivered', next_at: null });
      expect(await outbox.get(b)).toMatchObject({ state: 'pending', next_at: T + 10 + 30_000 });
    });

    it('redelivery starts a new round at once; a late result of the old round is logged but moves nothing', async () => {
      const id = await finalJob();
      await outbox.record(result(id, 1, T, 500));
      expect(await outbox.redeliver(id, T + 100)).toMatchObject({ state: 'pending', round: 2, round_attempts: 0, next_at: T + 100 });
      await outbox.record(result(id, 1, T + 50, 500)); // was in flight when the redelivery came
      expect(await outbox.get(id)).toMatchObject({ state: 'pending', round: 2, round_attempts: 0, next_at: T + 100 });
      await outbox.record(result(id, 2, T + 100, 204));
      expect(await outbox.get(id)).toMatchObject({ state: 'delivered', round: 2, round_attempts: 1 });
      expect((await outbox.attempts(id)).map((x) => [x.attempt, x.round, x.status_code])).toEqual([
        [1, 1, 500],
        [2, 1, 500],
        [3, 2, 204],
      ]);
      // A job that has no delivery has nothing to redeliver.
      expect(await outbox.redeliver('job_none', T)).toBeUndefined();
    });

    it('dueFor: per lane, oldest due first, leaving out busy jobs; pendingLanes; nextDueAfter', async () => {
      const ids = [
        await finalJob(T, { callback_url: 'https://a.test/x' }),
        await finalJob(T + 1, { callback_url: 'https://b.test:8443/x' }),
        await finalJob(T + 2, { callback_url: 'https://a.test/y' }),
      ];
      expect(await outbox.pendingLanes()).toEqual([mine('https://a.test'), mine('https://b.test:8443')]);
      expect(await outbox.dueFor(mine('https://a.test'), T + 1, [], 10)).toEqual([{ job_id: ids[0], origin: 'https://a.test', round: 1 }]);
      expect((await outbox.dueFor(mine('https://a.test'), T + 10, [ids[0]!], 10)).map((d) => d.job_id)).toEqual([ids[2]]);
      expect(await outbox.nextDueAfter(T + 0)).toBe(T + 1);
      await outbox.record(result(ids[1]!, 1, T + 20, 503));
      expect(await outbox.nextDueAfter(T + 20)).toBe(T + 30 + 30_000);
      await outbox.record(result(ids[1]!, 1, T + 20, 200));
      expect(await outbox.pendingLanes()).toEqual([mine('https://a.test')]); // nothing pending for b any more
    });

    it("keeps each account's deliveries in a lane of its own, even to one origin (H)", async () => {
      const hook = 'https://hooks.example/in';
      const early = await finalJob(T, { callback_url: hook, account_id: 'acct_b' });
      const late = await finalJob(T + 1, { callback_url: hook, account_id: 'acct_a' });
      const service = await finalJob(T + 2, { callback_url: hook });
      const origin = 'https://hooks.example';
      expect(await outbox.pendingLanes()).toEqual([
        { account: '', origin },
        { account: 'acct_a', origin },
        { account: 'acct_b', origin },
      ]);
      expect((await outbox.dueFor({ account: 'acct_a', origin }, T + 10, [], 10)).map((d) => d.job_id)).toEqual([late]);
      expect((await outbox.dueFor({ account: 'acct_b', origin }, T + 10, [], 10)).map((d) => d.job_id)).toEqual([early]);
      expect((await outbox.dueFor(mine(origin), T + 10, [], 10)).map((d) => d.job_id)).toEqual([service]);
    });

    it('dueFor gives at most `limit`, oldest due first', async () => {
      const ids = [await finalJob(T + 3), await finalJob(T + 1), await finalJob(T + 2)];
      expect((await outbox.dueFor(mine('https://hooks.example:8443'), T + 10, [], 2)).map((d) => d.job_id)).toEqual([ids[1], ids[2]]);
    });

    it('a delivery released unattempted is due again', async () => {
      const id = await finalJob();
      expect(await outbox.dueFor(mine('https://hooks.example:8443'), T, [], 10)).toHaveLength(1);
      await outbox.release([id]);
      expect((await outbox.dueFor(mine('https://hooks.example:8443'), T, [], 10)).map((d) => d.job_id)).toEqual([id]);
    });

    it('an attempt that ends after its job was deleted is dropped, not an error', async () => {
      const id = await finalJob();
      await t.store.delete(id);
      await outbox.record(result(id, 1, T, 204));
      expect(await outbox.get(id)).toBeUndefined();
      expect(await outbox.attempts(id)).toEqual([]);
    });

    it('clearOld deletes deliveries that are over and older than the cut, with their logs, keeping pending ones', async () => {
      const delivered = await finalJob(T);
      const failedForGood = await finalJob(T + 1);
      const pending = await finalJob(T + 2);
      const young = await finalJob(T + 50_000);
      await outbox.record(result(delivered, 1, T, 200));
      await failForGood(failedForGood);
      await outbox.record(result(young, 1, T + 50_000, 200));

      expect(await outbox.clearOld(T + 10_000, 1)).toBe(1);
      expect(await outbox.clearOld(T + 10_000, 10)).toBe(1);
      expect(await outbox.clearOld(T + 10_000, 10)).toBe(0);
      const states = await Promise.all([delivered, failedForGood, pending, young].map(async (id) => (await outbox.get(id))?.state ?? null));
      expect(states).toEqual([null, null, 'pending', 'delivered']);
      expect(await outbox.attempts(failedForGood)).toEqual([]);
      expect(await outbox.attempts(young)).toHaveLength(1);
      expect(await t.store.get(delivered)).toBeDefined(); // the job itself stays
    });
  });
}
