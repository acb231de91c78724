import type { Clock } from '../../core/clock.js';
import type { IdGenerator } from '../../core/ids.js';
import type { AccountStore } from '../../keys/account-store.js';
import { hashSecret, newKeyRow, toKey, useIsDue, verdict, wellFormed, type ApiKey, type Authentication, type KeyRow, type KeyStore, type NewKey } from '../../keys/key-store.js';
import type { Db } from './db.js';

const COLUMNS = `id, name, hint, scopes, created_at, expires_at, revoked_at, last_used_at, account_id`;

/**
 * The keys of one data dir. Lookups are cached by hash; `invalidate` drops the cache when
 * another process (the command line) may have revoked a key.
 */
export class SqliteKeyStore implements KeyStore {
  private readonly cache = new Map<string, ApiKey | null>();
  private readonly s;

  constructor(
    db: Db,
    /** Whose accounts are disabled: read on each authentication, never cached here. */
    private readonly accounts: AccountStore,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO api_keys (id, name, hash, hint, scopes, created_at, expires_at, revoked_at, last_used_at, account_id)
         VALUES (@id, @name, @hash, @hint, @scopes, @created_at, @expires_at, @revoked_at, @last_used_at, @account_id)`,
      ),
      byHash: db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE hash = ?`),
      byId: db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`),
      all: db.prepare(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`),
      revoke: db.prepare(`UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`),
      touch: db.prepare(`UPDATE api_keys SET last_used_at = ? WHERE id = ?`),
    };
  }

  async create(input: NewKey): Promise<{ key: ApiKey; secret: string }> {
    const { row, secret } = newKeyRow(input, this.ids, this.clock.now());
    this.s.insert.run(row);
    return { key: this.get(row.id)!, secret };
  }

  get(id: string): ApiKey | undefined {
    const row = this.s.byId.get(id) as KeyRow | undefined;
    return row && toKey(row);
  }

  list(): ApiKey[] {
    return (this.s.all.all() as KeyRow[]).map(toKey);
  }

  async revoke(id: string): Promise<boolean> {
    const changed = this.s.revoke.run(this.clock.now(), id).changes > 0;
    this.cache.clear();
    return changed;
  }

  authenticate(secret: string): Authentication {
    if (!wellFormed(secret)) return { ok: false, reason: 'malformed' };
    const hash = hashSecret(secret);
    let key = this.cache.get(hash);
    if (key === undefined) {
      const row = this.s.byHash.get(hash) as KeyRow | undefined;
      key = row ? toKey(row) : null;
      // Made-up keys must not grow the cache without bound.
      if (this.cache.size >= 10_000) this.cache.clear();
      this.cache.set(hash, key);
    }
    return verdict(key, this.accounts, this.clock.now());
  }

  async authenticateAgain(secret: string): Promise<Authentication> {
    if (wellFormed(secret)) this.cache.delete(hashSecret(secret));
    return this.authenticate(secret);
  }

  recordUse(key: ApiKey): void {
    if (useIsDue(key, this.clock.now())) this.s.touch.run(key.last_used_at, key.id);
  }

  invalidate(): void {
    this.cache.clear();
  }
}
