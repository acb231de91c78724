import type pg from 'pg';

/** After the listening connection is lost, how long before listening again. */
const RELISTEN_MS = 1_000;

/**
 * Holds one connection of the pool that LISTENs on `channel`, and listens again a second
 * after that connection is lost (the server restarted, the network dropped), for as long as
 * it takes. Notices sent while it was lost are not heard: `onRelisten` is told each time it
 * listens again, so the owner can read again whatever it must not miss.
 */
export class ChannelListener {
  private listening: pg.PoolClient | undefined;
  private relisten: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly onNotice: (payload: string) => void,
    private readonly onRelisten: () => void = () => {},
  ) {}

  async listen(): Promise<void> {
    const client = await this.pool.connect();
    const lost = (error?: Error) => {
      if (this.listening !== client) return;
      this.listening = undefined;
      client.release(error ?? true);
      this.listenLater();
    };
    client.on('notification', (n) => this.onNotice(n.payload ?? ''));
    client.on('error', lost);
    client.on('end', () => lost());
    this.listening = client;
    try {
      await client.query(`LISTEN ${this.channel}`);
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

  private listenLater(): void {
    if (this.closed || this.relisten) return;
    this.relisten = setTimeout(() => {
      this.relisten = undefined;
      this.listen().then(this.onRelisten, () => this.listenLater());
    }, RELISTEN_MS);
    this.relisten.unref();
  }
}
