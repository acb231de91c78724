/** Schema 3: Settings, the signing secret, and the per-key request budgets. */
export const sql = `
  -- Account-wide settings (caps, rotation, pause, retention, pause between jobs) and the
  -- install's profile: one JSON value per name, as in SQLite (main/settings/settings-store.ts).
  CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value JSONB NOT NULL
  );

  -- The webhook signing secret: one row, made by the first instance to start.
  CREATE TABLE webhook_signing_secret (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    secret     TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );

  -- Per-key request limits (GCRA, main/storage/postgres/rate-limit.ts): one row per key and budget.
  CREATE TABLE request_budgets (
    budget  TEXT NOT NULL,              -- read | write
    bucket  TEXT NOT NULL,              -- the key's id, or 'admin'
    -- The theoretical arrival time, epoch ms; fractional, since a request is worth
    -- 60 000 / limit ms, which need not be whole.
    tat     DOUBLE PRECISION NOT NULL,
    -- What the latest request was told: 0 (allowed), else ms until one is allowed.
    wait_ms DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (budget, bucket)
  );
  `;
