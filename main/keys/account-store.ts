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
 * implementations: SQLite in the data dir (storage/sqlite, SqliteAccountStore) and PostgreSQL shared
 * by several instances (storage/postgres/account-store.ts). Profile F has none: the install is the
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
