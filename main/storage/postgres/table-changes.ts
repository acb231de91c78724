import type pg from 'pg';
import { ChannelListener } from './channel-listener.js';

/**
 * The channel on which a transaction that changed one of the small shared tables (keys,
 * accounts, settings, the signing secret, …) names that table. Every instance keeps those
 * tables in memory, for reads on every request without a round trip, and reloads a table
 * when it hears its name. PostgreSQL delivers a NOTIFY only on commit.
 */
const CHANNEL = 'chatbridge_tables';

/** Says that `table` changed; run it inside the transaction that changed it. */
export async function announceTableChange(c: pg.PoolClient | pg.Pool, table: string): Promise<void> {
  await c.query(`SELECT pg_notify('${CHANNEL}', $1)`, [table]);
}

/**
 * At most how long an instance's copy of a shared table may lag: a notice is a hint, and the
 * listening connection can be lost without anyone knowing for a while, so every table is
 * read again this often: a revoked key or a disabled account is refused on every instance
 * within it even when its notice was never heard.
 */
export const REREAD_MS = 30_000;

/**
 * Hears which shared tables other instances (and the command line) changed, on one connection
 * of the pool. A change announced while that connection was lost is not heard, so once it
 * listens again every table's listeners are called, as if each had changed; and every
 * `rereadMs` too.
 */
export class TableChanges {
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly listener: ChannelListener;
  private reread: NodeJS.Timeout | undefined;

  constructor(
    pool: pg.Pool,
    private readonly rereadMs = REREAD_MS,
  ) {
    this.listener = new ChannelListener(
      pool,
      CHANNEL,
      (table) => this.changed(table),
      () => this.changedAll(),
    );
  }

  /** Calls `listener` whenever `table` may have changed. Returns the function that stops it. */
  on(table: string, listener: () => void): () => void {
    const set = this.listeners.get(table) ?? new Set();
    set.add(listener);
    this.listeners.set(table, set);
    return () => set.delete(listener);
  }

  async listen(): Promise<void> {
    await this.listener.listen();
    clearInterval(this.reread);
    this.reread = setInterval(() => this.changedAll(), this.rereadMs);
    this.reread.unref();
  }

  /** Stops listening; call before the pool ends. */
  close(): void {
    clearInterval(this.reread);
    this.listener.close();
  }

  private changedAll(): void {
    for (const table of this.listeners.keys()) this.changed(table);
  }

  private changed(table: string): void {
    for (const listener of [...(this.listeners.get(table) ?? [])]) listener();
  }
}
