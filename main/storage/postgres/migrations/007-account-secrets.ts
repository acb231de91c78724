/** Schema 7: (H) Each account's signing secret, and deliveries taking turns by account. */
export const sql = `
  -- (H) Each account's own webhook signing secret, made on first need; the service's own
  -- (webhook_signing_secret) signs the deliveries of jobs without an account.
  CREATE TABLE webhook_account_secrets (
    account_id TEXT PRIMARY KEY,
    secret     TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );

  -- (H) Whose job each delivery is ('' for the service's own), so that the sender lets
  -- accounts take turns: one account's backlog never holds up another's delivery.
  ALTER TABLE webhook_deliveries ADD COLUMN account_id TEXT NOT NULL DEFAULT '';
  UPDATE webhook_deliveries SET account_id = COALESCE((SELECT account_id FROM jobs WHERE jobs.id = webhook_deliveries.job_id), '')
    WHERE state = 'pending';
  -- It takes over from the index by origin alone: the sender looks by account, then origin.
  DROP INDEX webhook_deliveries_origin;
  CREATE INDEX webhook_deliveries_lane ON webhook_deliveries (account_id, origin, next_at) WHERE state = 'pending';
  `;
