/** The JobStore contract on SQLite: the desktop's store, in a data dir of its own per test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../main/storage/sqlite/db.js';
import { SqliteJobStore } from '../../main/storage/sqlite/job-store.js';
import { jobStoreContract, type StoreUnderTest } from './job-store-contract.js';
import { SqliteWebhookOutbox } from '../../main/storage/sqlite/outbox.js';

jobStoreContract('SQLite', async (): Promise<StoreUnderTest> => {
  const dir = mkdtempSync(join(tmpdir(), 'chatbridge-store-'));
  const db = openDatabase(dir);
  const outbox = new SqliteWebhookOutbox(db);
  return {
    store: new SqliteJobStore(db, outbox),
    async delivery(jobId) {
      return outbox.get(jobId);
    },
    async addDisabledAccount(id, at) {
      db.prepare(`INSERT INTO accounts (id, name, disabled_at, created_at) VALUES (?, ?, ?, ?)`).run(id, id, at, at);
    },
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
