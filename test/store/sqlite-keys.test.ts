/** The key and account contracts on one machine: SQLite in a data dir of its own per test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomIds } from '../../main/core/ids.js';
import { openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import type { ManualClock } from '../support/manual-clock.js';
import { keyStoreContract, type Stores } from './key-store-contract.js';
import { SqliteAccountStore } from '../../main/storage/sqlite/account-store.js';
import { SqliteKeyStore } from '../../main/storage/sqlite/key-store.js';

keyStoreContract('SQLite', async (clock: ManualClock) => {
  const dir = mkdtempSync(join(tmpdir(), 'chatbridge-keys-'));
  const opened: Db[] = [];
  /** The stores of one connection to the data dir, as one process opens it. */
  const open = (): Stores & { db: Db } => {
    const db = openDatabase(dir);
    opened.push(db);
    const accounts = new SqliteAccountStore(db, clock, randomIds);
    return { db, accounts, keys: new SqliteKeyStore(db, accounts, clock, randomIds) };
  };
  const here = open();
  return {
    ...here,
    another: async () => open(),
    row: async (id) => here.db.prepare(`SELECT * FROM api_keys WHERE id = ?`).get(id) as Record<string, unknown> | undefined,
    settled: async () => {},
    async close() {
      for (const db of opened) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
