/** The settings, signing secret and request limit contracts on one machine: SQLite in a data dir of its own per test, limits in memory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../main/keys/rate-limit.js';
import { systemClock } from '../../main/core/clock.js';
import { randomIds } from '../../main/core/ids.js';
import { DataDirError, openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import { claimProfile } from '../../main/storage/sqlite/profile.js';
import { SqliteAccountStore } from '../../main/storage/sqlite/account-store.js';
import { SqliteKeyStore } from '../../main/storage/sqlite/key-store.js';
import { accountSecretsContract } from './account-secrets-contract.js';
import { rateLimitContract } from './rate-limit-contract.js';
import { settingsContract } from './settings-contract.js';
import { signingSecretContract } from './signing-secret-contract.js';
import { SqliteSettingsStore } from '../../main/storage/sqlite/settings-store.js';
import { SqliteAccountSecrets, SqliteSigningSecret } from '../../main/storage/sqlite/webhook-secrets.js';

/** A data dir and its database, opened again for each "other process". */
function dataDir(): { open(): Db; close(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'chatbridge-settings-'));
  const opened: Db[] = [];
  return {
    open() {
      const db = openDatabase(dir);
      opened.push(db);
      return db;
    },
    async close() {
      for (const db of opened) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

settingsContract('SQLite', async () => {
  const dir = dataDir();
  return {
    store: new SqliteSettingsStore(dir.open()),
    another: async () => new SqliteSettingsStore(dir.open()),
    close: dir.close,
  };
});

signingSecretContract('SQLite', async () => {
  const dir = dataDir();
  return { open: async () => new SqliteSigningSecret(dir.open(), randomIds, systemClock), close: dir.close };
});

accountSecretsContract('SQLite', async () => {
  const dir = dataDir();
  return { open: async () => new SqliteAccountSecrets(dir.open(), randomIds, systemClock), close: dir.close };
});

rateLimitContract('In-memory', async () => ({
  limiter: async (clock, _budget, perMinute) => new MemoryRateLimiter(clock, perMinute),
  close: async () => {},
}));

describe('the profile a data dir belongs to', () => {
  it('is personal for a data dir with keys from before profiles, which refuses hosted', async () => {
    const dir = dataDir();
    try {
      const db = dir.open();
      const keys = new SqliteKeyStore(db, new SqliteAccountStore(db, systemClock, randomIds), systemClock, randomIds);
      await keys.create({ name: 'old', scopes: ['completions:write'], expiresAt: null });
      // No profile stored: what a data dir of a version before profiles holds.
      expect(() => claimProfile(db, 'the-dir', 'hosted')).toThrow(DataDirError);
      expect(() => claimProfile(db, 'the-dir', 'hosted')).toThrow(/belongs to the personal profile/);
    } finally {
      await dir.close();
    }
  });
});
