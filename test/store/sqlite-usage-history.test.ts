/** The UsageHistory contract on SQLite, and what only the data dir's reading does: the covering index, turns while sorting. */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import { SqliteJobStore } from '../../main/storage/sqlite/job-store.js';
import { SqliteUsageHistory } from '../../main/storage/sqlite/usage-history.js';
import { percentiles } from '../../main/queue/usage-history.js';
import { tempDataDir } from '../support/harness.js';
import { seedFinishedJobs } from '../support/seed-history.js';
import { H, usageHistoryContract } from './usage-history-contract.js';
import { SqliteWebhookOutbox } from '../../main/storage/sqlite/outbox.js';
import { DAY_MS } from '../../main/core/timestamps.js';

usageHistoryContract('SQLite', async () => {
  const dir = tempDataDir();
  const db = openDatabase(dir);
  return {
    store: new SqliteJobStore(db, new SqliteWebhookOutbox(db)),
    history: new SqliteUsageHistory(db),
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite usage history', () => {
  let dir: string;
  let db: Db;
  beforeEach(() => {
    dir = tempDataDir();
    db = openDatabase(dir);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets other callbacks run while it sorts the samples of a range read in one slice', async () => {
    // 4 000 jobs in one day: one slice, and some 50 000 samples to sort over the tallies
    // (totals, bucket, provider, agent, key), done in one go before, in shares now.
    const agents = [
      { id: 'agt_1', provider: 'chatgpt' },
      { id: 'agt_2', provider: 'claude' },
    ];
    await seedFinishedJobs(new SqliteJobStore(db, new SqliteWebhookOutbox(db)), db, { count: 4_000, from: H, to: H + DAY_MS, agents, keys: ['key_a', 'key_b'] });
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const report = await new SqliteUsageHistory(db).report({ since: H, until: H + DAY_MS });
    ticking = false;
    expect(report.totals.jobs).toBe(4_000);
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it('reads only the covering index', () => {
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT finished_at, COALESCE(provider, req_provider), agent_id, api_key_id, status, error_code, created_at, queue_ms, run_ms, attempts
        FROM jobs INDEXED BY jobs_finished WHERE finished_at >= 0 AND finished_at < 1 AND api_key_id = 'k'`)
      .all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join()).toMatch(/USING COVERING INDEX jobs_finished/);
  });
});

describe('percentiles', () => {
  it('nearest rank, whatever the order of the samples', () => {
    expect(percentiles([])).toBeNull();
    expect(percentiles([7])).toEqual({ p50: 7, p95: 7 });
    expect(percentiles([4, 1, 3, 2])).toEqual({ p50: 2, p95: 4 });
    expect(percentiles(Array.from({ length: 100 }, (_, i) => 100 - i))).toEqual({ p50: 50, p95: 95 });
  });
});
