import type pg from 'pg';
import { Listeners } from '../../core/listeners.js';
import { announceTableChange, type TableChanges } from './table-changes.js';

export interface SharedTableOptions<T> {
  /** The table's name, as announced to the other instances. */
  table: string;
  /** Reads the whole table. */
  read: () => Promise<T>;
  /** Whether two reads found the same table; without it, onChange listeners never hear anything. */
  same?: (a: T, b: T) => boolean;
  /** Called after each read with what it found and what the copy held before (undefined at the first), before anyone is told. */
  onRead?: (now: T, before: T | undefined) => void;
  /** A read after another instance's change failed (the database out of reach); TableChanges reads everything again once it listens again. */
  onError: (error: Error) => void;
}

/**
 * One instance's copy of a small shared table (settings, accounts, keys, the signing secret),
 * read again after each local write and whenever TableChanges says another instance changed
 * it. Reads run one at a time, each after the last: one started after a commit is never
 * overtaken by an older one that would put the table back as it was. Asks for a read while
 * one is waiting its turn share that one (it begins after them all): a burst of notices,
 * which any role that can connect may send, costs one read under way and one more.
 */
export class SharedTable<T> {
  private value: T | undefined;
  private reads: Promise<unknown> = Promise.resolve();
  /** The read queued behind the one under way, not begun yet. */
  private waiting: Promise<void> | undefined;
  private readonly listeners = new Listeners();

  /** `pool` and `changes` are shared with the other stores and closed by their owner. */
  constructor(
    private readonly pool: pg.Pool,
    changes: TableChanges,
    private readonly options: SharedTableOptions<T>,
  ) {
    changes.on(options.table, () => this.invalidate());
  }

  /** The copy; load() must have resolved once. */
  get current(): T {
    if (this.value === undefined) throw new Error('The shared table was not loaded: await load() at start.');
    return this.value;
  }

  /** Reads the table; call once before the reads. */
  load(): Promise<void> {
    return this.refresh();
  }

  /** Reads again in the background; a failure goes to onError. */
  invalidate(): void {
    this.refresh().catch((error: unknown) => this.options.onError(error as Error));
  }

  /**
   * Listens for reads that found the table changed. A listener that throws must not turn a
   * committed change into a failed write, nor keep the others from hearing it: its error is
   * rethrown on its own, outside the read.
   */
  onChange(listener: () => void): () => void {
    return this.listeners.on(listener);
  }

  /** One statement and the announcement, in one transaction; resolves with its row count once this copy shows it. */
  async write(sql: string, params: unknown[]): Promise<number> {
    const { rowCount } = await changeSharedTable(this.pool, this.options.table, (c) => c.query(sql, params));
    await this.refresh();
    return rowCount ?? 0;
  }

  /** Resolves once the copy holds what was committed before this call. */
  private refresh(): Promise<void> {
    if (this.waiting) return this.waiting;
    const next = this.reads.then(async () => {
      this.waiting = undefined;
      const before = this.value;
      const now = await this.options.read();
      this.value = now;
      this.options.onRead?.(now, before);
      const { same } = this.options;
      if (same && before !== undefined && !same(now, before)) this.listeners.emitApart();
    });
    // A failed read leaves the copy as it was and does not stop the reads queued after it.
    this.reads = next.catch(() => {});
    this.waiting = next;
    return next;
  }
}

/**
 * Runs `work` in one transaction that also announces that `table` changed: the other
 * instances hear it once it commits (NOTIFY is sent on commit only).
 */
export async function changeSharedTable<T>(pool: pg.Pool, table: string, work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  let value: T;
  try {
    await c.query('BEGIN');
    value = await work(c);
    await announceTableChange(c, table);
    await c.query('COMMIT');
  } catch (error) {
    // A connection that cannot even roll back is in no state to be reused: it is closed.
    const rolledBack = await c.query('ROLLBACK').then(() => true, () => false);
    c.release(!rolledBack);
    throw error;
  }
  c.release();
  return value;
}
