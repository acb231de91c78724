/**
 * The account's webhook signing secret (`whsec_` + random, decisions.md), shared by the
 * server, the command line and the dashboard: SQLite in the data dir
 * (storage/sqlite/webhook-secrets.ts) or PostgreSQL shared by several instances
 * (storage/postgres/signing-secret.ts). The sender reads it at every attempt, so a
 * rotation applies from the next attempt on, retries included.
 */
export interface SigningSecret {
  /** The current secret (made on first use where none exists yet). */
  get(): string;
  /** Replaces the secret and resolves with the new one once committed; the old one verifies nothing sent from now on. */
  rotate(): Promise<string>;
}

