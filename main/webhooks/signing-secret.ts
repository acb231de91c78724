import type { Clock } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { Db } from '../queue/db.js';

/**
 * The account's webhook signing secret (`whsec_` + random, decisions.md), shared by the
 * server, the command line and the dashboard: SQLite in the data dir (SqliteSigningSecret,
 * below) or PostgreSQL shared by several instances (postgres/signing-secret.ts). The sender
 * reads it at every attempt, so a rotation applies from the next attempt on, retries included.
 */
export interface SigningSecret {
  /** The current secret (made on first use where none exists yet). */
  get(): string;
  /** Replaces the secret and resolves with the new one once committed; the old one verifies nothing sent from now on. */
  rotate(): Promise<string>;
}

export class SqliteSigningSecret implements SigningSecret {
  private readonly s;

  constructor(
    db: Db,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {
    this.s = {
      read: db.prepare(`SELECT secret FROM webhook_signing_secret WHERE id = 1`).pluck(),
      // Two processes may make the first secret at once: the first insert wins, both read it.
      create: db.prepare(`INSERT INTO webhook_signing_secret (id, secret, created_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING`),
      replace: db.prepare(
        `INSERT INTO webhook_signing_secret (id, secret, created_at) VALUES (1, ?, ?)
         ON CONFLICT (id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at`,
      ),
    };
  }

  get(): string {
    const current = this.s.read.get() as string | undefined;
    if (current !== undefined) return current;
    this.s.create.run(this.ids.signingSecret(), this.clock.now());
    return this.s.read.get() as string;
  }

  async rotate(): Promise<string> {
    const secret = this.ids.signingSecret();
    this.s.replace.run(secret, this.clock.now());
    return secret;
  }
}
