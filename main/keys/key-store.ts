import { hash } from 'node:crypto';
import type { IdGenerator } from '../core/ids.js';
import type { AccountStore } from './account-store.js';
import type { Scope } from '../contract/enumerations.js';

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

export type KeyRow = Omit<ApiKey, 'scopes'> & { scopes: string };

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

/** One-shot `hash`: a third of createHash's cost, which builds a Hash object (every request is authenticated). */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export type Authentication =
  | { ok: true; key: ApiKey }
  | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' | 'account_disabled' };

/**
 * API keys, behind one port with two implementations: SQLite in the data dir
 * (storage/sqlite, SqliteKeyStore) and PostgreSQL shared by several instances (storage/postgres/key-store.ts).
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
   * `authenticate` once more for a key this copy did not know, after reading the keys again:
   * another instance or a command may have made it a moment ago, before the news of it
   * reached this one (a script that makes a key and uses it at once, through a balancer).
   */
  authenticateAgain(secret: string): Promise<Authentication>;
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

