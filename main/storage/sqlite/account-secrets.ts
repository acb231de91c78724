import type { Clock } from '../../core/clock.js';
import type { IdGenerator } from '../../core/ids.js';
import type { AccountSecrets } from '../../webhooks/account-secrets.js';
import type { Db } from './db.js';

export class SqliteAccountSecrets implements AccountSecrets {
  private readonly s;

  constructor(
    db: Db,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {
    this.s = {
      read: db.prepare(`SELECT secret FROM webhook_account_secrets WHERE account_id = ?`).pluck(),
      // Two processes may make an account's first secret at once: the first insert wins, both read it.
      create: db.prepare(`INSERT INTO webhook_account_secrets (account_id, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (account_id) DO NOTHING`),
      replace: db.prepare(
        `INSERT INTO webhook_account_secrets (account_id, secret, created_at) VALUES (?, ?, ?)
         ON CONFLICT (account_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at`,
      ),
    };
  }

  async of(accountId: string): Promise<string> {
    const current = this.s.read.get(accountId) as string | undefined;
    if (current !== undefined) return current;
    this.s.create.run(accountId, this.ids.signingSecret(), this.clock.now());
    return this.s.read.get(accountId) as string;
  }

  async rotate(accountId: string): Promise<string> {
    const secret = this.ids.signingSecret();
    this.s.replace.run(accountId, secret, this.clock.now());
    return secret;
  }
}
