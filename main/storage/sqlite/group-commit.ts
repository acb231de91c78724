import type { Transaction } from 'better-sqlite3';
import type { Db } from './db.js';
import { walSyncOf, type WalSync } from './wal-sync.js';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Results = { ok: boolean; value: unknown }[];

/** PRAGMA synchronous = FULL, as a number. */
const FULL = 2;

/**
 * Commits concurrent writes together. A durable commit waits for an fsync; requests that
 * arrive in the same turn of the event loop share one transaction, so the fsync is paid
 * once per group instead of once per request, and off the event loop (WalSync). A piece of
 * work that throws is rolled back alone and rejects alone. A promise settles only once the
 * commit is on disk, so a caller never answers for data that is not.
 *
 * A piece of work must be one that can run again once its transaction is rolled back and
 * `afterRollback` has run: the group's work is first run as one (a savepoint each costs
 * about 5 µs, as much as a submission's insert), and only if a piece throws is it all rolled
 * back and run again with a savepoint per piece.
 */
export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;
  /** The batch's work in one transaction; it throws what the first piece to fail throws. */
  private readonly together: Transaction<(batch: Pending[]) => Results>;
  /** The batch's work with a savepoint per piece, each piece's outcome its own. */
  private readonly apart: Transaction<(batch: Pending[]) => Results>;

  /**
   * `afterRollback` lets owners of in-memory mirrors of the data resynchronise them; `log`
   * flushes the commits of a database with a log file (null: each commit is durable as it
   * returns, or needs no disk).
   */
  constructor(
    private readonly db: Db,
    private readonly afterRollback: () => void = () => {},
    private readonly log: WalSync | null = walSyncOf(db),
  ) {
    this.together = db.transaction((batch: Pending[]) => batch.map((p) => ({ ok: true, value: p.work() })));
    const savepoint = db.transaction((work: () => unknown) => work());
    this.apart = db.transaction((batch: Pending[]) =>
      batch.map((p) => {
        try {
          return { ok: true, value: savepoint(p.work) };
        } catch (error) {
          return { ok: false, value: error };
        }
      }),
    );
  }

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    // While the log is flushed, requests go on arriving: they commit together once it is
    // done, in one transaction and one more flush, rather than a group and a flush each.
    if (this.log?.busy) return this.log.whenIdle(() => this.flush());
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    // A connection its owner set below FULL (a fixture's OFF) commits as it is set, with no flush.
    const synchronous = this.log ? (this.db.pragma('synchronous', { simple: true }) as number) : 0;
    const log = synchronous >= FULL ? this.log : null;
    let results: Results;
    try {
      results = log ? this.commitUnsynced(batch, synchronous) : this.transact(batch);
    } catch (error) {
      for (const p of batch) p.reject(error);
      this.afterRollback();
      return;
    }
    // Work that threw left nothing behind (its savepoint rolled back): it need not wait for the disk.
    const kept: [Pending, unknown][] = [];
    batch.forEach((p, i) => (results[i]!.ok ? kept.push([p, results[i]!.value]) : p.reject(results[i]!.value)));
    if (kept.length < batch.length) this.afterRollback();
    const settle = () => kept.forEach(([p, value]) => p.resolve(value));
    if (log) log.after(settle);
    else settle();
  }

  /** The batch's transaction, committed without waiting for the disk (the log's flush does), then the connection as it was. */
  private commitUnsynced(batch: Pending[], synchronous: number): Results {
    this.db.pragma('synchronous = NORMAL');
    try {
      return this.transact(batch);
    } finally {
      this.db.pragma(`synchronous = ${synchronous}`);
    }
  }

  private transact(batch: Pending[]): Results {
    try {
      return this.together.immediate(batch);
    } catch {
      this.afterRollback();
      return this.apart.immediate(batch);
    }
  }
}
