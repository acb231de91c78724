import type { Statement, Transaction } from 'better-sqlite3';
import { open } from 'node:fs/promises';
import type { Db } from './db.js';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Commits concurrent writes together. Requests that arrive in the same turn of the event
 * loop share one transaction, so the WAL's fsync is paid once per group instead of once per
 * request. Each piece of work runs in its own savepoint: one that throws is rolled back
 * alone and rejects alone. A promise resolves only once the commit is on disk, so a caller
 * never answers for data that is not.
 *
 * On a database file, the group commits with synchronous=NORMAL (the WAL written, not yet
 * synced) and the WAL is then synced off the event loop (fdatasync in libuv's thread pool)
 * before any promise of the group settles: under FULL, SQLite's own fsync held the event
 * loop for the whole disk flush, and every request meanwhile (reads that need no disk)
 * waited behind it. One sync at a time: groups that commit while one runs share the next.
 * The other writers of the connection keep synchronous=FULL; their fsync covers whatever
 * was written before it.
 */
export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;
  private readonly flushAll: Transaction<(batch: Pending[]) => { ok: boolean; value: unknown }[]>;
  /** The WAL of a database file; null in memory, where the commit itself is all there is. */
  private readonly wal: string | null;
  private readonly relaxed: { normal: Statement; full: Statement } | null;
  /** Groups committed and waiting for the next sync of the WAL. */
  private unsynced: ((error?: unknown) => void)[] = [];
  private syncing = false;

  /** `afterRollback` lets owners of in-memory mirrors of the data resynchronise them. */
  constructor(
    db: Db,
    private readonly afterRollback: () => void = () => {},
  ) {
    const savepoint = db.transaction((work: () => unknown) => work());
    this.flushAll = db.transaction((batch: Pending[]) =>
      batch.map((p) => {
        try {
          return { ok: true, value: savepoint(p.work) };
        } catch (error) {
          return { ok: false, value: error };
        }
      }),
    );
    const walMode = !db.memory && String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal';
    this.wal = walMode ? `${db.name}-wal` : null;
    this.relaxed = walMode ? { normal: db.prepare('PRAGMA synchronous = NORMAL'), full: db.prepare('PRAGMA synchronous = FULL') } : null;
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
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    let results: { ok: boolean; value: unknown }[];
    this.relaxed?.normal.run();
    try {
      results = this.flushAll.immediate(batch);
    } catch (error) {
      for (const p of batch) p.reject(error);
      this.afterRollback();
      return;
    } finally {
      this.relaxed?.full.run();
    }
    if (results.some((r) => !r.ok)) this.afterRollback();
    const settle = (syncFailed?: unknown) =>
      batch.forEach((p, i) => {
        const r = results[i]!;
        if (!r.ok) p.reject(r.value);
        else if (syncFailed) p.reject(syncFailed);
        else p.resolve(r.value);
      });
    if (this.wal === null) return settle();
    this.unsynced.push(settle);
    this.sync(this.wal);
  }

  /** fdatasync of the WAL for the groups committed so far; another follows if more commit meanwhile. */
  private sync(wal: string): void {
    if (this.syncing) return;
    this.syncing = true;
    const groups = this.unsynced;
    this.unsynced = [];
    // The file is opened for each sync: an fsync reaches the file's data through any of its
    // descriptors, and a descriptor kept open could outlive a WAL that SQLite recreated.
    void open(wal, 'r')
      .then(async (file) => {
        try {
          await file.datasync();
        } finally {
          await file.close();
        }
      })
      .then(
        () => groups.forEach((settle) => settle()),
        (error: unknown) => {
          // No WAL: the last connection closed meanwhile, which checkpoints the WAL into the
          // database file, syncs that and only then removes the WAL.
          const gone = (error as NodeJS.ErrnoException).code === 'ENOENT';
          groups.forEach((settle) => settle(gone ? undefined : error));
        },
      )
      .finally(() => {
        this.syncing = false;
        if (this.unsynced.length > 0) this.sync(wal);
      });
  }
}
