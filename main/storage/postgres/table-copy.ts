import type pg from 'pg';
import { announceTableChange } from './table-changes.js';

/**
 * One instance's copy of a small shared table (settings, the signing secret, …), read again
 * after each local write and whenever TableChanges says another instance changed it. Reads
 * run one at a time, each after the last: one started after a commit is never overtaken by
 * an older one that would put the table back as it was.
 */
export class TableCopy<T> {
  private value: T | undefined;
  private reads: Promise<unknown> = Promise.resolve();

  constructor(
    /** Reads the whole table. */
    private readonly read: () => Promise<T>,
    /** Called after each read, with what it found and what the copy held before (undefined at the first). */
    private readonly onRead: (now: T, before: T | undefined) => void = () => {},
  ) {}

  /** The copy; refresh() must have resolved once. */
  get current(): T {
    if (this.value === undefined) throw new Error('The shared table was not loaded: await load() at start.');
    return this.value;
  }

  /** Reads the table again; resolves once the copy holds what was committed before this call. */
  refresh(): Promise<void> {
    const next = this.reads.then(async () => {
      const before = this.value;
      this.value = await this.read();
      this.onRead(this.value, before);
    });
    // A failed read leaves the copy as it was and does not stop the reads queued after it.
    this.reads = next.catch(() => {});
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
