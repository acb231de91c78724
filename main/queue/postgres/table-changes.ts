import type pg from 'pg';

/**
 * The channel on which a transaction that changed one of the small shared tables (keys,
 * accounts, settings, the signing secret, …) names that table. Every instance keeps those
 * tables in memory, for reads on every request without a round trip, and reloads a table
 * when it hears its name. PostgreSQL delivers a NOTIFY only on commit.
 */
const CHANNEL = 'chatbridge_tables';
/** After the listening connection is lost, how long before listening again. */
const RELISTEN_MS = 1_000;

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
  private listening: pg.PoolClient | undefined;
  private relisten: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly pool: pg.Pool) {}

  /** Calls `listener` whenever `table` may have changed. Returns the function that stops it. */
  on(table: string, listener: () => void): () => void {
    const set = this.listeners.get(table) ?? new Set();
    set.add(listener);
    this.listeners.set(table, set);
    return () => set.delete(listener);
  }

  async listen(): Promise<void> {
    const client = await this.pool.connect();
    const lost = (error?: Error) => {
      if (this.listening !== client) return;
      this.listening = undefined;
      client.release(error ?? true);
      this.listenLater();
    };
    client.on('notification', (n) => this.changed(n.payload ?? ''));
    client.on('error', lost);
    client.on('end', () => lost());
    this.listening = client;
    try {
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      lost(error as Error);
      throw error;
    }
  }

  /** Stops listening; call before the pool ends. */
  close(): void {
    this.closed = true;
    clearTimeout(this.relisten);
    const client = this.listening;
    this.listening = undefined;
    client?.release(true);
  }

  private changed(table: string): void {
    for (const listener of [...(this.listeners.get(table) ?? [])]) listener();
  }

  private listenLater(): void {
    if (this.closed || this.relisten) return;
    this.relisten = setTimeout(() => {
      this.relisten = undefined;
      this.listen().then(
        () => {
          for (const table of this.listeners.keys()) this.changed(table);
        },
        () => this.listenLater(),
      );
    }, RELISTEN_MS);
    this.relisten.unref();
  }
}
