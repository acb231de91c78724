/**
 * What every usage history must report (the UsageHistory port), as one suite each
 * implementation runs with a factory of its own: buckets, groups, filters and percentiles
 * against jobs whose times are known, and the same figures after their content is pruned.
 * test/store/sqlite-usage-history.test.ts, test/store/pg-usage-history.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../main/queue/hourly-usage.js';
import type { NewJob } from '../../main/core/jobs.js';
import type { JobStore } from '../../main/queue/job-store.js';
import { submit } from '../support/store.js';
import type { UsageHistory } from '../../main/queue/usage-history.js';
import { DAY_MS } from '../../main/core/timestamps.js';

/** A job store on an empty database, and the usage history reading that database. */
export interface HistoryUnderTest {
  store: JobStore;
  history: UsageHistory;
  /** Closes what the factory opened besides the store (the store itself is closed by the suite). */
  close?(): Promise<void>;
}

/** The start of an hour. */
export const H = Date.UTC(2026, 10, 21, 10, 0, 0);

export function usageHistoryContract(name: string, makeHistory: () => Promise<HistoryUnderTest>): void {
  describe(`${name} usage history (the UsageHistory contract)`, () => {
    let t: HistoryUnderTest;
    let store: JobStore;
    let history: UsageHistory;

    beforeEach(async () => {
      t = await makeHistory();
      ({ store, history } = t);
      n = 0;
    });
    afterEach(async () => {
      await store.close();
      await t.close?.();
    });

    let n = 0;
    async function job(createdAt: number, overrides: Partial<NewJob> = {}): Promise<string> {
      const id = `job_${String(++n).padStart(4, '0')}`;
      await submit(store, {
        id,
        prompt: 'p',
        req_provider: null,
        req_agent_id: null,
        conversation_in: null,
        priority: 0,
        timeout_ms: 60_000,
        deadline_at: createdAt + HOUR_MS,
        max_attempts: 1,
        callback_url: null,
        metadata: '{}',
        created_at: createdAt,
        api_key_id: 'key_a',
        ...overrides,
      });
      return id;
    }

    async function ran(id: string, agent: string, provider: string, queueMs: number, runMs: number, end: 'succeeded' | 'PROVIDER_ERROR' = 'succeeded'): Promise<void> {
      const start = (await store.get(id))!.created_at + queueMs;
      await store.dispatch([{ jobId: id, agentId: agent, provider: provider }], start);
      await store.endAttempt(
        id,
        1,
        end === 'succeeded' ? { outcome: 'succeeded', response: 'r', conversationRef: `cv_${id}`, conversationAddress: 'a' } : { outcome: 'failed', errorCode: end },
        start + runMs,
      );
    }

    /**
     * Hour 0: twenty chatgpt jobs on agt_1 (key_a), the i-th waiting i×100 ms and running
     * i×1 000 ms. Hour 1: a claude job that failed on agt_2 (key_b), a claude job that expired
     * in the queue, a cancelled one (admin token). Outside the range: one before, one live.
     */
    async function knownJobs(): Promise<void> {
      for (let i = 1; i <= 20; i++) await ran(await job(H + i * 60_000), 'agt_1', 'chatgpt', i * 100, i * 1_000);
      await ran(await job(H + HOUR_MS + 60_000, { api_key_id: 'key_b' }), 'agt_2', 'claude', 500, 3_000, 'PROVIDER_ERROR');
      const expiring = await job(H + HOUR_MS, { api_key_id: 'key_b', req_provider: 'claude', deadline_at: H + HOUR_MS + 600_000 });
      await store.expireDue(H + HOUR_MS + 600_000);
      await store.cancel(await job(H + HOUR_MS + 120_000, { api_key_id: 'admin' }), H + HOUR_MS + 130_000);
      await ran(await job(H - HOUR_MS), 'agt_1', 'chatgpt', 10, 10);
      await job(H + HOUR_MS); // still queued: not counted
      expect((await store.get(expiring))!.status).toBe('expired');
    }

    it('counts finished jobs per hour and per provider, agent and key, with nearest-rank percentiles', async () => {
      await knownJobs();
      const report = await history.report({ since: H, until: H + 3 * HOUR_MS });

      expect(report.totals).toMatchObject({ jobs: 23, succeeded: 20, failed: 1, cancelled: 1, expired: 1 });
      expect(report.totals.failures).toEqual({ PROVIDER_ERROR: 1, JOB_TIMEOUT: 1 });
      expect(report.series.map((b) => b.start)).toEqual([H, H + HOUR_MS, H + 2 * HOUR_MS]);
      const [first, second, third] = report.series;
      expect(first!.providers).toEqual({ chatgpt: 20 });
      // 20 samples: p50 is the 10th, p95 the 19th.
      expect(first!.figures).toMatchObject({
        jobs: 20,
        succeeded: 20,
        queue_ms: { p50: 1_000, p95: 1_900 },
        run_ms: { p50: 10_000, p95: 19_000 },
        answer_ms: { p50: 11_000, p95: 20_900 },
        failures: {},
      });
      // The expired job asked for claude; the cancelled one named no provider and never ran.
      expect(second!.providers).toEqual({ claude: 2, none: 1 });
      expect(second!.figures).toMatchObject({ jobs: 3, failed: 1, expired: 1, cancelled: 1, queue_ms: { p50: 500, p95: 500 }, answer_ms: null });
      expect(third!.figures).toMatchObject({ jobs: 0, queue_ms: null, run_ms: null });

      const ids = (rows: { id: string | null; figures: { jobs: number } }[]) => rows.map((r) => [r.id, r.figures.jobs]);
      expect(ids(report.groups.provider)).toEqual([['chatgpt', 20], ['claude', 2], [null, 1]]);
      expect(ids(report.groups.agent)).toEqual([['agt_1', 20], [null, 2], ['agt_2', 1]]);
      expect(ids(report.groups.key)).toEqual([['key_a', 20], ['key_b', 2], ['admin', 1]]);
    });

    it('filters by key and by agent', async () => {
      await knownJobs();
      const range = { since: H, until: H + 2 * HOUR_MS };
      expect((await history.report({ ...range, keyId: 'key_b' })).totals).toMatchObject({ jobs: 2, failed: 1, expired: 1 });
      expect((await history.report({ ...range, agentId: 'agt_2' })).totals).toMatchObject({ jobs: 1, failed: 1 });
      expect((await history.report({ ...range, keyId: 'key_a', agentId: 'agt_2' })).totals.jobs).toBe(0);
      expect((await history.report({ ...range, keyId: 'key_a', agentId: 'agt_1' })).totals.jobs).toBe(20);
    });

    it('aligns day buckets to an offset (local midnight), and gives the same figures once content is pruned', async () => {
      await knownJobs();
      // Days starting at 10:00 UTC, midnight of a zone 10 hours east.
      const days = await history.report({ since: H - DAY_MS, until: H + DAY_MS }, DAY_MS, H % DAY_MS);
      expect(days.series.map((b) => [b.start, b.figures.jobs])).toEqual([[H - DAY_MS, 1], [H, 23]]);

      const before = await history.report({ since: H, until: H + 2 * HOUR_MS });
      expect(await store.pruneContent(H + DAY_MS, H + DAY_MS, 100)).toBe(24);
      expect(await history.report({ since: H, until: H + 2 * HOUR_MS })).toEqual(before);
    });
  });
}
