import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import type { IdGenerator } from '../../core/ids.js';
import { SharedTable } from './shared-table.js';
import type { TableChanges } from './table-changes.js';
import type { SigningSecret } from '../../webhooks/signing-secret.js';

const TABLE = 'webhook_signing_secret';

/**
 * The signing secret of several instances on one PostgreSQL, kept in memory on each (the
 * sender signs every attempt with it) and read again when any instance rotates it: a
 * rotation on one is what the others sign with once they hear of it, milliseconds later.
 */
export class PgSigningSecret implements SigningSecret {
  private readonly table: SharedTable<string>;

  /**
   * `pool` and `changes` are shared with the other stores and closed by their owner.
   * `onError`: a read after another instance's rotation failed (the database out of reach);
   * TableChanges reads everything again once it listens again.
   */
  constructor(
    private readonly pool: pg.Pool,
    changes: TableChanges,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    onError: (error: Error) => void,
  ) {
    this.table = new SharedTable(pool, changes, {
      table: TABLE,
      read: async () => {
        const { rows } = await pool.query<{ secret: string }>(`SELECT secret FROM webhook_signing_secret WHERE id = 1`);
        // Only load() runs before the row exists, and it makes the row first.
        return rows[0]!.secret;
      },
      onError,
    });
  }

  /**
   * Makes the secret if the database has none yet, and reads it; call once before get().
   * Instances starting together on an empty database each offer one: the first insert
   * wins, the others wait for it on the primary key and then read the winner's.
   */
  async load(): Promise<void> {
    await this.pool.query(
      `INSERT INTO webhook_signing_secret (id, secret, created_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING`,
      [this.ids.signingSecret(), this.clock.now()],
    );
    await this.table.load();
  }

  get(): string {
    return this.table.current;
  }

  async rotate(): Promise<string> {
    const secret = this.ids.signingSecret();
    await this.table.write(
      `INSERT INTO webhook_signing_secret (id, secret, created_at) VALUES (1, $1, $2)
       ON CONFLICT (id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at`,
      [secret, this.clock.now()],
    );
    return secret;
  }
}
