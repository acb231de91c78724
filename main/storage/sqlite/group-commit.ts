import type { Transaction } from 'better-sqlite3';
import type { Db } from './db.js';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Commits concurrent writes together. With synchronous=FULL every commit waits for an
 * fsync; requests that arrive in the same turn of the event loop share one transaction,
 * so the fsync is paid once per group instead of once per request. Each piece of work runs
 * in its own savepoint: one that throws is rolled back alone and rejects alone. A promise
 * resolves only after the commit, so a caller never answers for data that is not on disk.
 */
export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;
  private readonly flushAll: Transaction<(batch: Pending[]) => { ok: boolean; value: unknown }[]>;

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
    try {
      results = this.flushAll.immediate(batch);
    } catch (error) {
      for (const p of batch) p.reject(error);
      this.afterRollback();
      return;
    }
    if (results.some((r) => !r.ok)) this.afterRollback();
    batch.forEach((p, i) => (results[i]!.ok ? p.resolve(results[i]!.value) : p.reject(results[i]!.value)));
  }
}
