/**
 * (H) Each account's own webhook signing secret (`whsec_` + random, decisions.md): its jobs'
 * deliveries are signed with it, so one account's secret verifies nothing sent to another.
 * Shown and rotated only through that account's keys; the operator's view (the dashboard,
 * `webhooks secret`) shows the service's own secret (signing-secret.ts), never these. Read
 * at every attempt, so a rotation applies from the next attempt on, retries included.
 * SQLite in the data dir (storage/sqlite) or PostgreSQL (storage/postgres/account-secrets.ts).
 */
export interface AccountSecrets {
  /** The account's secret, made on first need. */
  of(accountId: string): Promise<string>;
  /** Replaces the account's secret and resolves with the new one once committed. */
  rotate(accountId: string): Promise<string>;
}

