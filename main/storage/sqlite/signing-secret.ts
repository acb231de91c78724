import type { Clock } from '../../core/clock.js';
import type { IdGenerator } from '../../core/ids.js';
import type { SigningSecret } from '../../webhooks/signing-secret.js';
import type { Db } from './db.js';

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
