import type { Clock } from '../../core/clock.js';
import type { IdGenerator } from '../../core/ids.js';
import type { Account, AccountStore } from '../../keys/account-store.js';
import { checkRetention } from '../../settings/settings-store.js';
import type { Db } from './db.js';
import { Listeners } from '../../core/listeners.js';

export class SqliteAccountStore implements AccountStore {
  private readonly listeners = new Listeners();
  private readonly s;

  constructor(
    db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO accounts (id, name, retention_days, created_at) VALUES (@id, @name, @retention_days, @created_at)`,
      ),
      get: db.prepare(`SELECT * FROM accounts WHERE id = ?`),
      all: db.prepare(`SELECT * FROM accounts ORDER BY created_at, id`),
      setRetention: db.prepare(`UPDATE accounts SET retention_days = ? WHERE id = ?`),
      disable: db.prepare(`UPDATE accounts SET disabled_at = ? WHERE id = ? AND disabled_at IS NULL`),
    };
  }

  async create(input: { name: string; retentionDays: number | null }): Promise<Account> {
    checkRetention(input.retentionDays);
    const id = this.ids.account();
    this.s.insert.run({ id, name: input.name, retention_days: input.retentionDays, created_at: this.clock.now() });
    this.invalidate();
    return this.get(id)!;
  }

  get(id: string): Account | undefined {
    return this.s.get.get(id) as Account | undefined;
  }

  list(): Account[] {
    return this.s.all.all() as Account[];
  }

  async setRetention(id: string, days: number | null): Promise<boolean> {
    checkRetention(days);
    return this.changed(this.s.setRetention.run(days, id).changes > 0);
  }

  async disable(id: string): Promise<boolean> {
    return this.changed(this.s.disable.run(this.clock.now(), id).changes > 0);
  }

  onChange(listener: () => void): () => void {
    return this.listeners.on(listener);
  }

  /** Nothing is cached here: the listeners hear it. */
  invalidate(): void {
    this.listeners.emit();
  }

  private changed(changed: boolean): boolean {
    if (changed) this.invalidate();
    return changed;
  }
}
