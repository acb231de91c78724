/** Schema 5: Webhook deliveries claimed by the instance that sends them, and the delivery log. */
export const sql = `
  -- Webhooks are sent by whichever instances are alive: a sender claims each due delivery it
  -- sends (claimed_by, until claim_until). No other instance takes it before the claim is
  -- recorded, released, or has lapsed (its sender died: it is sent again, at least once).
  ALTER TABLE webhook_deliveries ADD COLUMN claimed_by TEXT;
  ALTER TABLE webhook_deliveries ADD COLUMN claim_until BIGINT;
  CREATE INDEX webhook_deliveries_claims ON webhook_deliveries (claim_until) WHERE state = 'pending' AND claim_until IS NOT NULL;

  -- The delivery log: every attempt that ended, across rounds.
  CREATE TABLE webhook_attempts (
    job_id      TEXT NOT NULL REFERENCES webhook_deliveries (job_id) ON DELETE CASCADE,
    attempt     INTEGER NOT NULL,       -- 1-based over every round
    round       INTEGER NOT NULL,
    started_at  BIGINT NOT NULL,
    duration_ms INTEGER NOT NULL,
    status_code INTEGER,                -- the receiver's HTTP status; null when none came
    error       TEXT,                   -- why no status came (timeout, refused, TLS); null otherwise
    device_id   TEXT NOT NULL,          -- the instance that sent it
    PRIMARY KEY (job_id, attempt)
  );
  `;
