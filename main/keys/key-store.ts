import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { Db } from '../queue/db.js';
import type { AccountStore } from './account-store.js';

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

type KeyRow = Omit<ApiKey, 'scopes'> & { scopes: string };

/** What a new key is given; the rest (id, secret, hint, times) the store makes. */
export interface NewKey {
  name: string;
  scopes: Scope[];
  expiresAt: number | null;
  accountId?: string | null;
}

/** `cb_` + 40 base62 characters (decisions.md). */
const KEY_SHAPE = /^cb_[0-9A-Za-z]{40}$/;
/** last_used_at is written at most this often per key, so reads stay free of writes. */
export const TOUCH_EVERY_MS = 60_000;

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export type Authentication =
  | { ok: true; key: ApiKey }
  | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' | 'account_disabled' };

/**
 * API keys, behind one port with two implementations: SQLite in the data dir
 * (SqliteKeyStore, below) and PostgreSQL shared by several instances (postgres/key-store.ts).
 * Only the SHA-256 of a secret is stored; the secret is shown once, at creation. A key is
 * checked on every request, so `authenticate`, `get` and `list` answer from memory; a write
 * resolves once it is committed and the reads here already show it.
 */
export interface KeyStore {
  create(input: NewKey): Promise<{ key: ApiKey; secret: string }>;
  get(id: string): ApiKey | undefined;
  /** Oldest first. */
  list(): ApiKey[];
  /** Resolves false when there is no such key or it was already revoked. */
  revoke(id: string): Promise<boolean>;
  /** A key of a disabled account (AccountStore) is refused as soon as that store shows it disabled. */
  authenticate(secret: string): Authentication;
  /**
   * The key made a request it was allowed to make (authenticated, in scope, within its
   * budget): its last use is written at most once a minute, without the request waiting.
   */
  recordUse(key: ApiKey): void;
  /** Another process may have changed the keys: read them again. */
  invalidate(): void;
}

/** A new key's row (as both stores insert it) and its secret. */
export function newKeyRow(input: NewKey, ids: IdGenerator, now: number): { row: KeyRow & { hash: string }; secret: string } {
  const secret = ids.apiKeySecret();
  return {
    secret,
    row: {
      id: ids.apiKeyId(),
      name: input.name,
      hash: hashSecret(secret),
      hint: `${secret.slice(0, 7)}…`,
      scopes: input.scopes.join(' '),
      created_at: now,
      expires_at: input.expiresAt,
      revoked_at: null,
      last_used_at: null,
      account_id: input.accountId ?? null,
    },
  };
}

export function toKey(row: KeyRow): ApiKey {
  return { ...row, scopes: row.scopes.split(' ').filter(Boolean) as Scope[] };
}

/** The verdict on a key found (or not) by the hash of a secret of the right shape. */
export function verdict(key: ApiKey | null | undefined, accounts: AccountStore, now: number): Authentication {
  if (!key) return { ok: false, reason: 'unknown' };
  if (key.revoked_at !== null) return { ok: false, reason: 'revoked' };
  if (key.account_id !== null && (accounts.get(key.account_id)?.disabled_at ?? null) !== null) return { ok: false, reason: 'account_disabled' };
  if (key.expires_at !== null && key.expires_at <= now) return { ok: false, reason: 'expired' };
  return { ok: true, key };
}

/** Whether a secret has the shape of a key; anything else is refused before it is hashed. */
export function wellFormed(secret: string): boolean {
  return KEY_SHAPE.test(secret);
}

/**
 * Whether the key's use now is to be written (its last written use is a minute old or
 * more); if so it is marked used now, so the writes that follow wait another minute.
 */
export function useIsDue(key: ApiKey, now: number): boolean {
  if (key.last_used_at !== null && now - key.last_used_at < TOUCH_EVERY_MS) return false;
  key.last_used_at = now;
  return true;
}

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

  recordUse(key: ApiKey): void {
    if (useIsDue(key, this.clock.now())) this.s.touch.run(key.last_used_at, key.id);
  }

  invalidate(): void {
    this.cache.clear();
  }
}
