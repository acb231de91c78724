/** Schema 2: The webhook outbox, its delivery log, and the signing secret. */
export const sql = `
  -- The webhook outbox: one row per final job with a callback_url, written in the
  -- transaction that made the job final (JobStore), so no final job can miss its webhook.
  CREATE TABLE webhook_deliveries (
    job_id         TEXT PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    origin         TEXT NOT NULL,       -- scheme://host:port of callback_url: concurrency is bounded per origin
    state          TEXT NOT NULL,       -- pending | delivered | failed (every attempt of the round failed)
    round          INTEGER NOT NULL,    -- 1, then one more for each redelivery asked for
    round_attempts INTEGER NOT NULL,    -- attempts made in this round (at most 5)
    next_at        INTEGER,             -- epoch ms the next attempt is due; null unless pending
    created_at     INTEGER NOT NULL
  ) WITHOUT ROWID;
  -- The next retry to wait for; and, per origin, what is due (see WebhookOutbox.dueFor).
  CREATE INDEX webhook_deliveries_next ON webhook_deliveries (next_at) WHERE state = 'pending';
  CREATE INDEX webhook_deliveries_origin ON webhook_deliveries (origin, next_at) WHERE state = 'pending';

  -- The delivery log: every attempt that ended, across rounds.
  CREATE TABLE webhook_attempts (
    job_id      TEXT NOT NULL REFERENCES webhook_deliveries (job_id) ON DELETE CASCADE,
    attempt     INTEGER NOT NULL,       -- 1-based over every round
    round       INTEGER NOT NULL,
    started_at  INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    status_code INTEGER,                -- the receiver's HTTP status; null when none came
    error       TEXT,                   -- why no status came (timeout, refused, TLS); null otherwise
    PRIMARY KEY (job_id, attempt)
  ) WITHOUT ROWID;

  -- The account's one signing secret (decisions.md): whsec_ + random.
  CREATE TABLE webhook_signing_secret (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    secret     TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  `;
