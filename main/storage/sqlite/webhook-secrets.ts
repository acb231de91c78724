import type { Clock } from '../../core/clock.js';
import type { IdGenerator } from '../../core/ids.js';
import type { AccountSecrets } from '../../webhooks/account-secrets.js';
import type { SigningSecret } from '../../webhooks/signing-secret.js';
import type { Db } from './db.js';

/**
 * A table of webhook signing secrets by key, each made on first need. Two processes may make
 * the same first secret at once: the first insert wins, and both read it.
 */
class SecretRows {
  private readonly s;

  constructor(
    db: Db,
    table: 'webhook_signing_secret' | 'webhook_account_secrets',
    key: 'id' | 'account_id',
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {
    this.s = {
      read: db.prepare(`SELECT secret FROM ${table} WHERE ${key} = ?`).pluck(),
      create: db.prepare(`INSERT INTO ${table} (${key}, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (${key}) DO NOTHING`),
      replace: db.prepare(
        `INSERT INTO ${table} (${key}, secret, created_at) VALUES (?, ?, ?)
         ON CONFLICT (${key}) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at`,
      ),
    };
  }

  of(key: string | number): string {
    const current = this.s.read.get(key) as string | undefined;
    if (current !== undefined) return current;
    this.s.create.run(key, this.ids.signingSecret(), this.clock.now());
    return this.s.read.get(key) as string;
  }

  rotate(key: string | number): string {
    const secret = this.ids.signingSecret();
    this.s.replace.run(key, secret, this.clock.now());
    return secret;
  }
}

/** The service's own secret: the one row of webhook_signing_secret. */
export class SqliteSigningSecret implements SigningSecret {
  private readonly rows: SecretRows;

  constructor(db: Db, ids: IdGenerator, clock: Clock) {
    this.rows = new SecretRows(db, 'webhook_signing_secret', 'id', ids, clock);
  }

  get(): string {
    return this.rows.of(1);
  }

  async rotate(): Promise<string> {
    return this.rows.rotate(1);
  }
}

/** (H) Each account's own secret. */
export class SqliteAccountSecrets implements AccountSecrets {
  private readonly rows: SecretRows;

  constructor(db: Db, ids: IdGenerator, clock: Clock) {
    this.rows = new SecretRows(db, 'webhook_account_secrets', 'account_id', ids, clock);
  }

  async of(accountId: string): Promise<string> {
    return this.rows.of(accountId);
  }

  async rotate(accountId: string): Promise<string> {
    return this.rows.rotate(accountId);
  }
}
