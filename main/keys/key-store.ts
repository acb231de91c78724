import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { Db } from '../queue/db.js';

export const SCOPES = ['completions:read', 'completions:write', 'metrics:read'] as const;
export type Scope = (typeof SCOPES)[number];

export interface ApiKey {
  id: string;
  name: string;
  hint: string;
  scopes: Scope[];
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
  /** (H) The account the key acts for; null in Profile F, where the install is the one account. */
  account_id: string | null;
}

type KeyRow = Omit<ApiKey, 'scopes'> & { scopes: string; account_disabled: number };

/** `cb_` + 40 base62 characters (decisions.md). */
const KEY_SHAPE = /^cb_[0-9A-Za-z]{40}$/;
/** last_used_at is written at most this often per key, so reads stay free of writes. */
const TOUCH_EVERY_MS = 60_000;

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export type Authentication =
  | { ok: true; key: ApiKey }
  | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' | 'account_disabled' };

/** A key's row, with whether its account (if any) was disabled. */
const KEY_COLUMNS = `k.id, k.name, k.hint, k.scopes, k.created_at, k.expires_at, k.revoked_at, k.last_used_at, k.account_id,
  a.disabled_at IS NOT NULL AS account_disabled`;
const KEYS = `api_keys k LEFT JOIN accounts a ON a.id = k.account_id`;

/**
 * API keys. Only the SHA-256 of a secret is stored; the secret is shown once at creation.
 * Lookups are cached by hash; `invalidate` drops the cache when another process (the
 * command line) may have revoked a key.
 */
export class KeyStore {
  private readonly cache = new Map<string, CachedKey | null>();
  private readonly s;

  constructor(
    db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO api_keys (id, name, hash, hint, scopes, created_at, expires_at, account_id)
         VALUES (@id, @name, @hash, @hint, @scopes, @created_at, @expires_at, @account_id)`,
      ),
      byHash: db.prepare(`SELECT ${KEY_COLUMNS} FROM ${KEYS} WHERE k.hash = ?`),
      byId: db.prepare(`SELECT ${KEY_COLUMNS} FROM ${KEYS} WHERE k.id = ?`),
      all: db.prepare(`SELECT ${KEY_COLUMNS} FROM ${KEYS} ORDER BY k.created_at, k.id`),
      revoke: db.prepare(`UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`),
      touch: db.prepare(`UPDATE api_keys SET last_used_at = ? WHERE id = ?`),
    };
  }

  create(input: { name: string; scopes: Scope[]; expiresAt: number | null; accountId?: string | null }): { key: ApiKey; secret: string } {
    const secret = this.ids.apiKeySecret();
    const id = this.ids.apiKeyId();
    this.s.insert.run({
      id,
      name: input.name,
      hash: hashSecret(secret),
      hint: `${secret.slice(0, 7)}…`,
      scopes: input.scopes.join(' '),
      created_at: this.clock.now(),
      expires_at: input.expiresAt,
      account_id: input.accountId ?? null,
    });
    return { key: this.get(id)!, secret };
  }

  get(id: string): ApiKey | undefined {
    const row = this.s.byId.get(id) as KeyRow | undefined;
    return row && toKey(row);
  }

  list(): ApiKey[] {
    return (this.s.all.all() as KeyRow[]).map(toKey);
  }

  /** Returns false when there is no such key or it was already revoked. */
  revoke(id: string): boolean {
    const changed = this.s.revoke.run(this.clock.now(), id).changes > 0;
    this.cache.clear();
    return changed;
  }

  authenticate(secret: string): Authentication {
    if (!KEY_SHAPE.test(secret)) return { ok: false, reason: 'malformed' };
    const hash = hashSecret(secret);
    let key = this.cache.get(hash) as CachedKey | null | undefined;
    if (key === undefined) {
      const row = this.s.byHash.get(hash) as KeyRow | undefined;
      key = row ? toKey(row) : null;
      // Made-up keys must not grow the cache without bound.
      if (this.cache.size >= 10_000) this.cache.clear();
      this.cache.set(hash, key);
    }
    if (!key) return { ok: false, reason: 'unknown' };
    if (key.revoked_at !== null) return { ok: false, reason: 'revoked' };
    if (key.account_disabled) return { ok: false, reason: 'account_disabled' };
    const now = this.clock.now();
    if (key.expires_at !== null && key.expires_at <= now) return { ok: false, reason: 'expired' };
    return { ok: true, key };
  }

  /** The key made a request it was allowed to make (authenticated, in scope, within its budget). */
  recordUse(key: ApiKey): void {
    const now = this.clock.now();
    if (key.last_used_at === null || now - key.last_used_at >= TOUCH_EVERY_MS) {
      key.last_used_at = now;
      this.s.touch.run(now, key.id);
    }
  }

  invalidate(): void {
    this.cache.clear();
  }
}

type CachedKey = ApiKey & { account_disabled: boolean };

function toKey(row: KeyRow & { account_disabled: number }): CachedKey {
  const { account_disabled, ...key } = row;
  return { ...key, scopes: row.scopes.split(' ').filter(Boolean) as Scope[], account_disabled: account_disabled === 1 };
}
