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
 * Hears which shared tables other instances (and the command line) changed, on one connection
 * of the pool. A change announced while that connection was lost is not heard, so once it
 * listens again every table's listeners are called, as if each had changed.
 */
export class TableChanges {
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly listener: ChannelListener;

  constructor(pool: pg.Pool) {
    this.listener = new ChannelListener(
      pool,
      CHANNEL,
      (table) => this.changed(table),
      () => {
        for (const table of this.listeners.keys()) this.changed(table);
      },
    );
  }

  /** Calls `listener` whenever `table` may have changed. Returns the function that stops it. */
  on(table: string, listener: () => void): () => void {
    const set = this.listeners.get(table) ?? new Set();
    set.add(listener);
    this.listeners.set(table, set);
    return () => set.delete(listener);
  }

  listen(): Promise<void> {
    return this.listener.listen();
  }

  /** Stops listening; call before the pool ends. */
  close(): void {
    this.listener.close();
  }

  private changed(table: string): void {
    for (const listener of [...(this.listeners.get(table) ?? [])]) listener();
  }
}
