import type { Clock } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { Db } from '../queue/db.js';
import { checkRetention } from '../settings/settings-store.js';

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
 * The accounts the operator serves (decisions.md "Profile H"), behind one port with two
 * implementations: SQLite in the data dir (SqliteAccountStore, below) and PostgreSQL shared
 * by several instances (postgres/account-store.ts). Profile F has none: the install is the
 * one account. Keys check their account on every request, so reads answer from memory; a
 * write resolves once it is committed and the reads here already show it.
 */
export interface AccountStore {
  /** Rejects with a RangeError outside checkRetention's range. */
  create(input: { name: string; retentionDays: number | null }): Promise<Account>;
  get(id: string): Account | undefined;
  /** Oldest first. */
  list(): Account[];
  /** Resolves false when there is no such account; rejects with a RangeError outside checkRetention's range. */
  setRetention(id: string, days: number | null): Promise<boolean>;
  /** Resolves false when there is no such account or it was already disabled. */
  disable(id: string): Promise<boolean>;
  /**
   * Hears that the accounts may have changed: here, by another instance, or by `chatbridge
   * accounts` (a disabled account's queued jobs are to be cancelled, a retention applied).
   * Returns the function that stops it.
   */
  onChange(listener: () => void): () => void;
  /** Another process may have committed a change: read again, then tell the listeners. */
  invalidate(): void;
}

/** The accounts of one data dir, read from the database on each call (by primary key: cheap). */
export class SqliteAccountStore implements AccountStore {
  private readonly listeners = new Set<() => void>();
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
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Nothing is cached here: the listeners hear it. */
  invalidate(): void {
    for (const l of [...this.listeners]) l();
  }

  private changed(changed: boolean): boolean {
    if (changed) this.invalidate();
    return changed;
  }
}
