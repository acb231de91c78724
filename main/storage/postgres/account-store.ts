import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import type { IdGenerator } from '../../core/ids.js';
import { SharedTable } from './shared-table.js';
import type { TableChanges } from './table-changes.js';
import { checkRetention } from '../../settings/settings-store.js';
import type { Account, AccountStore } from '../../keys/account-store.js';

const TABLE = 'accounts';

/** The accounts by id, oldest first. */
type Accounts = Map<string, Account>;

/**
 * The accounts of several instances on one PostgreSQL: the `accounts` table (whose
 * disabled_at the job store reads too), copied in memory on each instance and read again
 * when any instance or `chatbridge accounts --database` changes it. A key store given this
 * store refuses a disabled account's keys once the copy shows it: on this instance before
 * disable() resolves, on the others when they hear the notice.
 */
export class PgAccountStore implements AccountStore {
  private readonly table: SharedTable<Accounts>;

  /**
   * `pool` and `changes` are shared with the other stores and closed by their owner.
   * `onError`: a read after another instance's change failed (the database out of reach).
   */
  constructor(
    pool: pg.Pool,
    changes: TableChanges,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    onError: (error: Error) => void,
  ) {
    this.table = new SharedTable(pool, changes, {
      table: TABLE,
      read: async () => {
        const { rows } = await pool.query<Account>(
          `SELECT id, name, retention_days, disabled_at, created_at FROM accounts ORDER BY created_at, id`,
        );
        return new Map(rows.map((a) => [a.id, a]));
      },
      same: sameAccounts,
      onError,
    });
  }

  /** Reads the table; call once before the reads. */
  load(): Promise<void> {
    return this.table.load();
  }

  async create(input: { name: string; retentionDays: number | null }): Promise<Account> {
    checkRetention(input.retentionDays);
    const id = this.ids.account();
    await this.table.write(`INSERT INTO accounts (id, name, retention_days, created_at) VALUES ($1, $2, $3, $4)`, [
      id,
      input.name,
      input.retentionDays,
      this.clock.now(),
    ]);
    return this.get(id)!;
  }

  get(id: string): Account | undefined {
    return this.table.current.get(id);
  }

  list(): Account[] {
    return [...this.table.current.values()];
  }

  async setRetention(id: string, days: number | null): Promise<boolean> {
    checkRetention(days);
    return (await this.table.write(`UPDATE accounts SET retention_days = $2 WHERE id = $1`, [id, days])) > 0;
  }

  async disable(id: string): Promise<boolean> {
    return (await this.table.write(`UPDATE accounts SET disabled_at = $2 WHERE id = $1 AND disabled_at IS NULL`, [id, this.clock.now()])) > 0;
  }

  /** Listens for changes made here or by any other instance. */
  onChange(listener: () => void): () => void {
    return this.table.onChange(listener);
  }

  /** Reads again; the listeners hear it if anything changed. */
  invalidate(): void {
    this.table.invalidate();
  }
}

function sameAccounts(a: Accounts, b: Accounts): boolean {
  return a.size === b.size && [...a].every(([id, account]) => JSON.stringify(account) === JSON.stringify(b.get(id)));
}
