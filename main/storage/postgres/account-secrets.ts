import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import type { IdGenerator } from '../../core/ids.js';
import type { AccountSecrets } from '../../webhooks/account-secrets.js';

/**
 * (H) The accounts' signing secrets on the PostgreSQL several instances share. Read from
 * the table at each attempt (one primary-key lookup), so a rotation on any instance is what
 * every instance signs with from its next attempt on, with no copy to keep in step.
 */
export class PgAccountSecrets implements AccountSecrets {
  /** `pool` is shared with the other stores and closed by its owner. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async of(accountId: string): Promise<string> {
    const read = async () =>
      (await this.pool.query<{ secret: string }>(`SELECT secret FROM webhook_account_secrets WHERE account_id = $1`, [accountId])).rows[0]?.secret;
    const current = await read();
    if (current !== undefined) return current;
    // Instances making an account's first secret at once: the first insert wins, the others
    // wait for it on the primary key, then all read the winner's (in a statement of its own,
    // whose snapshot holds it).
    await this.pool.query(
      `INSERT INTO webhook_account_secrets (account_id, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (account_id) DO NOTHING`,
      [accountId, this.ids.signingSecret(), this.clock.now()],
    );
    return (await read())!;
  }

  async rotate(accountId: string): Promise<string> {
    const secret = this.ids.signingSecret();
    await this.pool.query(
      `INSERT INTO webhook_account_secrets (account_id, secret, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (account_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at`,
      [accountId, secret, this.clock.now()],
    );
    return secret;
  }
}
