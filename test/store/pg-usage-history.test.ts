/** The UsageHistory contract on PostgreSQL, and the same figures as SQLite's for the same jobs. */
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../main/storage/postgres/connect.js';
import { PgJobStore } from '../../main/storage/postgres/job-store.js';
import { PgUsageHistory } from '../../main/storage/postgres/usage-history.js';
import { openDatabase } from '../../main/storage/sqlite/db.js';
import { SqliteJobStore } from '../../main/storage/sqlite/job-store.js';
import { SqliteUsageHistory } from '../../main/storage/sqlite/usage-history.js';
import { tempDataDir } from '../support/harness.js';
import { seedFinishedJobs } from '../support/seed-history.js';
import { startMigratedCluster, type MigratedCluster } from './migrated-cluster.js';
import { H, usageHistoryContract } from './usage-history-contract.js';
import { SqliteWebhookOutbox } from '../../main/storage/sqlite/outbox.js';
import { DAY_MS } from '../../main/core/timestamps.js';

let postgres: MigratedCluster;
beforeAll(async () => {
  postgres = await startMigratedCluster();
});
afterAll(() => postgres?.cluster.stop());

/** The contract's database, emptied before each of its tests. */
let contractDb: { url: string; pool: pg.Pool } | undefined;
afterAll(() => contractDb?.pool.end());

usageHistoryContract('PostgreSQL', async () => {
  if (!contractDb) {
    const url = await postgres.newDatabase();
    contractDb = { url, pool: await connect(url, { max: 2 }) };
  }
  await contractDb.pool.query(`TRUNCATE jobs, attempts, job_deltas, job_files, conversations, idempotency, webhook_deliveries, webhook_attempts`);
  const pool = await connect(contractDb.url);
  return { store: new PgJobStore(pool, 'dev_a'), history: new PgUsageHistory(pool) };
});

describe('PostgreSQL usage history', () => {
  it('reports the same figures as SQLite for the same jobs', async () => {
    const dir = tempDataDir();
    const db = openDatabase(dir);
    const pool = await connect(await postgres.newDatabase());
    const pgStore = new PgJobStore(pool, 'dev_a');
    try {
      const history = { count: 1_000, from: H - 10 * DAY_MS, to: H, agents: [{ id: 'agt_1', provider: 'chatgpt' }, { id: 'agt_2', provider: 'claude' }, { id: 'agt_3', provider: 'qwen' }], keys: ['key_a', 'key_b', 'admin'] };
      await seedFinishedJobs(new SqliteJobStore(db, new SqliteWebhookOutbox(db)), db, history);
      await seedFinishedJobs(pgStore, undefined, history);
      const sqlite = new SqliteUsageHistory(db);
      const shared = new PgUsageHistory(pool);
      for (const [q, bucketMs, offsetMs] of [
        [{ since: H - 7 * DAY_MS, until: H }, 3_600_000, 0],
        [{ since: H - 10 * DAY_MS, until: H + DAY_MS }, DAY_MS, -120 * 60_000],
        [{ since: H - 10 * DAY_MS, until: H, keyId: 'key_b', agentId: 'agt_2' }, DAY_MS, 0],
      ] as const) {
        const expected = await sqlite.report(q, bucketMs, offsetMs);
        expect(expected.totals.jobs).toBeGreaterThan(100);
        expect(await shared.report(q, bucketMs, offsetMs)).toEqual(expected);
      }
    } finally {
      await pgStore.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
