import type { Clock } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { Db } from '../queue/db.js';
import { MAX_RETENTION_DAYS } from '../settings/settings-store.js';

/** An account of Profile H: who submits jobs, with its own keys, queue and retention. */
export interface Account {
  id: string;
  name: string;
  /** Finished jobs of the account lose their prompt and response after this many days; null keeps them. */
  retention_days: number | null;
  disabled_at: number | null;
  created_at: number;
}

/**
 * The accounts the operator serves (decisions.md "Profile H"), shared through the database
 * by the server and the command line. Profile F has none: the install is the one account.
 */
export class AccountStore {
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

  create(input: { name: string; retentionDays: number | null }): Account {
    checkRetention(input.retentionDays);
    const id = this.ids.account();
    this.s.insert.run({ id, name: input.name, retention_days: input.retentionDays, created_at: this.clock.now() });
    return this.get(id)!;
  }

  get(id: string): Account | undefined {
    return this.s.get.get(id) as Account | undefined;
  }

  list(): Account[] {
    return this.s.all.all() as Account[];
  }

  /** Returns false when there is no such account. */
  setRetention(id: string, days: number | null): boolean {
    checkRetention(days);
    return this.s.setRetention.run(days, id).changes > 0;
  }

  /** Returns false when there is no such account or it was already disabled. */
  disable(id: string): boolean {
    return this.s.disable.run(this.clock.now(), id).changes > 0;
  }
}

function checkRetention(days: number | null): void {
  if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS)) {
    throw new RangeError(`Retention is a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or none`);
  }
}
