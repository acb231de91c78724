import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import type { IdGenerator } from '../../core/ids.js';
import { SharedTable } from './shared-table.js';
import type { TableChanges } from './table-changes.js';
import type { AccountStore } from '../../keys/account-store.js';
import {
  hashSecret,
  newKeyRow,
  toKey,
  TOUCH_EVERY_MS,
  useIsDue,
  verdict,
  wellFormed,
  type ApiKey,
  type Authentication,
  type KeyStore,
  type NewKey,
} from '../../keys/key-store.js';

const TABLE = 'api_keys';

/** Every key, by id (oldest first) and by the hash of its secret. */
interface Keys {
  byId: Map<string, ApiKey>;
  byHash: Map<string, ApiKey>;
}

/**
 * The API keys of several instances on one PostgreSQL: the `api_keys` table, copied in
 * memory on each instance (by hash, so a request is checked without a round trip) and read
 * again when any instance or `chatbridge keys --database` changes it. Whether a key's
 * account is disabled is read from the account store's copy at each check.
 */
export class PgKeyStore implements KeyStore {
  private readonly table: SharedTable<Keys>;
  /** last_used_at writes under way, which close() waits for. */
  private readonly touching = new Set<Promise<void>>();

  /**
   * `pool` and `changes` are shared with the other stores and closed by their owner;
   * `accounts` is this instance's account store, loaded. `onError`: a read after another
   * instance's change, or a last-use write, failed (the database out of reach); TableChanges
   * reads everything again once it listens again, and the next use a minute later writes again.
   */
  constructor(
    private readonly pool: pg.Pool,
    changes: TableChanges,
    private readonly accounts: AccountStore,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly onError: (error: Error) => void,
  ) {
    this.table = new SharedTable(pool, changes, {
      table: TABLE,
      read: async () => {
        const { rows } = await pool.query(
          `SELECT id, name, hash, hint, scopes, created_at, expires_at, revoked_at, last_used_at, account_id
           FROM api_keys ORDER BY created_at, id`,
        );
        const keys: Keys = { byId: new Map(), byHash: new Map() };
        for (const { hash, ...row } of rows) {
          const key = toKey(row);
          keys.byId.set(key.id, key);
          keys.byHash.set(hash, key);
        }
        return keys;
      },
      // A use written here that the read did not see yet (its write still under way) stays.
      onRead: (now, before) => {
        for (const key of now.byId.values()) {
          const known = before?.byId.get(key.id)?.last_used_at ?? null;
          if (known !== null && (key.last_used_at === null || known > key.last_used_at)) key.last_used_at = known;
        }
      },
      onError,
    });
  }

  /** Reads the table; call once before the reads (after the account store's load()). */
  load(): Promise<void> {
    return this.table.load();
  }

  async create(input: NewKey): Promise<{ key: ApiKey; secret: string }> {
    const { row, secret } = newKeyRow(input, this.ids, this.clock.now());
    await this.table.write(
      `INSERT INTO api_keys (id, name, hash, hint, scopes, created_at, expires_at, account_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [row.id, row.name, row.hash, row.hint, row.scopes, row.created_at, row.expires_at, row.account_id],
    );
    return { key: this.get(row.id)!, secret };
  }

  get(id: string): ApiKey | undefined {
    return this.table.current.byId.get(id);
  }

  list(): ApiKey[] {
    return [...this.table.current.byId.values()];
  }

  async revoke(id: string): Promise<boolean> {
    return (await this.table.write(`UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, [id, this.clock.now()])) > 0;
  }

  authenticate(secret: string): Authentication {
    if (!wellFormed(secret)) return { ok: false, reason: 'malformed' };
    return verdict(this.table.current.byHash.get(hashSecret(secret)), this.accounts, this.clock.now());
  }

  /** A read of the table (one under way and one waiting at most, however many unknown keys ask): a flood of made-up keys costs reads of a small table, one at a time. */
  async authenticateAgain(secret: string): Promise<Authentication> {
    if (!wellFormed(secret)) return { ok: false, reason: 'malformed' };
    await this.table.load();
    return this.authenticate(secret);
  }

  /**
   * Fire and forget: the request does not wait for the write. Each instance writes a key's
   * use at most once a minute, and the row takes it only if its stored use is a minute old,
   * so several instances serving one key write it about once a minute between them.
   */
  recordUse(key: ApiKey): void {
    const now = this.clock.now();
    if (!useIsDue(key, now)) return;
    const write = this.pool
      .query(
        `UPDATE api_keys SET last_used_at = $2
         WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $2::bigint - $3::bigint)`,
        [key.id, now, TOUCH_EVERY_MS],
      )
      .then(
        () => {},
        (error: unknown) => this.onError(error as Error),
      )
      .finally(() => this.touching.delete(write));
    this.touching.add(write);
  }

  /** Reads again. */
  invalidate(): void {
    this.table.invalidate();
  }

  /** Waits for the last-use writes under way; call before the pool ends. */
  async close(): Promise<void> {
    await Promise.all([...this.touching]);
  }
}
