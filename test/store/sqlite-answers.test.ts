/** GET /readyz asks the storage whether it takes a write now: the data dir's database says no when it cannot. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from '../../main/storage/sqlite/db.js';
import { servedLocally } from '../../main/storage/sqlite/sqlite-storage.js';

it('answers while the database takes a write, and not while it refuses one or is closed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chatbridge-answers-'));
  const db = openDatabase(dir);
  try {
    const served = servedLocally(db);
    expect(await served.answers()).toBe(true);
    db.pragma('query_only = ON');
    expect(await served.answers()).toBe(false);
    db.pragma('query_only = OFF');
    expect(await served.answers()).toBe(true);
    db.close();
    expect(await served.answers()).toBe(false);
  } finally {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
