/** The WebhookOutbox contract on SQLite: the desktop's outbox, in a data dir of its own per test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../main/storage/sqlite/db.js';
import { SqliteJobStore } from '../../main/storage/sqlite/job-store.js';
import { webhookOutboxContract, type OutboxUnderTest } from './webhook-outbox-contract.js';
import { SqliteWebhookOutbox } from '../../main/storage/sqlite/outbox.js';

webhookOutboxContract('SQLite', async (): Promise<OutboxUnderTest> => {
  const dir = mkdtempSync(join(tmpdir(), 'chatbridge-outbox-'));
  const db = openDatabase(dir);
  const outbox = new SqliteWebhookOutbox(db);
  const store = new SqliteJobStore(db, outbox);
  return {
    outbox,
    store,
    async close() {
      await store.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
