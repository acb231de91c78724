import type pg from 'pg';
import { CLI } from '../../core/cli-name.js';

/** After the listening connection is lost, how long before listening again. */
const RELISTEN_MS = 1_000;

/**
 * Holds one connection of the pool that LISTENs on `channel`, and listens again a second
 * after that connection is lost (the server restarted, the network dropped), for as long as
 * it takes. Notices sent while it was lost are not heard: `onRelisten` is told each time it
 * listens again, with when the connection was lost, so the owner can read again whatever it
 * must not miss.
 *
 * PostgreSQL has no permissions on channels: any role that can connect may NOTIFY on ours.
 * A notice is a hint, and `onNotice` may throw on one it cannot make sense of: the first
 * such is logged through `warn`, later ones are ignored quietly, and none reaches the pg
 * socket's handler (where a throw would end the process).
 */
export class ChannelListener {
  private listening: pg.PoolClient | undefined;
  private relisten: NodeJS.Timeout | undefined;
  private closed = false;
  private lostAt = 0;
  private warned = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly onNotice: (payload: string) => void,
    private readonly onRelisten: (lostAt: number) => void = () => {},
    private readonly warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
  ) {}

  async listen(): Promise<void> {
    const client = await this.pool.connect();
    const lost = (error?: Error) => {
      if (this.listening !== client) return;
      this.listening = undefined;
      this.lostAt = Date.now();
      client.release(error ?? true);
      this.listenLater();
    };
    client.on('notification', (n) => this.heard(n.payload ?? ''));
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

  private heard(payload: string): void {
    try {
      this.onNotice(payload);
    } catch (error) {
      if (this.warned) return;
      this.warned = true;
      this.warn(
        `Ignored a notice on ${this.channel} that is not one of ours (${(error as Error).message}): ${JSON.stringify(payload.slice(0, 80))}. ` +
          `Any role that can connect to the database can send one: give ChatBridge a database of its own (${CLI} migrate closes it to other roles). Later ones are ignored without a word.`,
      );
    }
  }

  private listenLater(): void {
    if (this.closed || this.relisten) return;
    this.relisten = setTimeout(() => {
      this.relisten = undefined;
      this.listen().then(
        () => this.caughtUp(),
        () => this.listenLater(),
      );
    }, RELISTEN_MS);
    this.relisten.unref();
  }

  private caughtUp(): void {
    try {
      this.onRelisten(this.lostAt);
    } catch (error) {
      this.warn(`Catching up on ${this.channel} after listening again failed: ${(error as Error).message}`);
    }
  }
}
