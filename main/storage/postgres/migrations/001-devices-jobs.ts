/** Schema 1: The first schema: the devices sharing the database, jobs and their attempts, conversations, idempotency keys, accounts, the webhook outbox. */
export const sql = `
  -- The instances sharing this database. Each runs its own agents; attempts say which one.
  CREATE TABLE devices (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    base_url     TEXT,                  -- where its API answers; null with --no-api
    heartbeat_at BIGINT NOT NULL,       -- a device silent for too long has lost its jobs
    started_at   BIGINT NOT NULL
  );

  CREATE TABLE jobs (
    id               TEXT PRIMARY KEY,
    status           TEXT NOT NULL,
    prompt           TEXT NOT NULL,
    req_provider     TEXT,              -- the provider asked for (a constraint), or null
    req_agent_id     TEXT,              -- the agent asked for (a constraint), or null
    conversation_in  TEXT,              -- conversation_ref to continue, or null
    priority         INTEGER NOT NULL,
    timeout_ms       INTEGER NOT NULL,
    deadline_at      BIGINT NOT NULL,   -- created_at + deadline_ms
    max_attempts     INTEGER NOT NULL,
    callback_url     TEXT,
    metadata         TEXT NOT NULL,     -- JSON exactly as received
    created_at       BIGINT NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 0,
    queue_ms         BIGINT,
    run_ms           BIGINT NOT NULL DEFAULT 0,
    agent_id         TEXT,              -- the agent of the latest attempt
    provider         TEXT,              -- the provider of the latest attempt
    response         TEXT,
    conversation_ref TEXT,              -- the conversation this job's answer belongs to
    error_code       TEXT,
    error_message    TEXT,
    finished_at      BIGINT,
    content_pruned_at BIGINT,           -- retention removed prompt (now '') and response (now null)
    api_key_id       TEXT,              -- the key that submitted it ('admin' for the dashboard's token)
    account_id       TEXT               -- (H) the account; null in Profile F
  );
  -- Dispatch order: higher priority, then older, then lower id. Only live rows are indexed.
  CREATE INDEX jobs_queue ON jobs (priority DESC, created_at, id) WHERE status = 'queued';
  -- An account's queue (its size is checked on every submission); null is Profile F's one account.
  CREATE INDEX jobs_queue_of ON jobs ((COALESCE(account_id, '')), priority DESC, created_at, id) WHERE status = 'queued';
  CREATE INDEX jobs_deadline ON jobs (deadline_at) WHERE status IN ('queued', 'dispatched');
  CREATE INDEX jobs_unpruned ON jobs (finished_at) WHERE finished_at IS NOT NULL AND content_pruned_at IS NULL;
  CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;

  CREATE TABLE attempts (
    job_id      TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    attempt     INTEGER NOT NULL,
    agent_id    TEXT NOT NULL,
    provider    TEXT NOT NULL,
    device_id   TEXT NOT NULL,          -- the instance whose agent runs it
    started_at  BIGINT NOT NULL,
    ended_at    BIGINT,
    outcome     TEXT,                   -- succeeded | failed | timed_out | cancelled | agent_lost
    error_code  TEXT,
    detail      TEXT,                   -- what the agent said about a failure; shown, never parsed
    PRIMARY KEY (job_id, attempt)
  );
  -- The rolling hourly window counts attempt starts.
  CREATE INDEX attempts_started ON attempts (started_at);
  -- What a device is running now: re-queued when it stops or dies.
  CREATE INDEX attempts_open ON attempts (device_id) WHERE ended_at IS NULL;

  CREATE TABLE conversations (
    id          TEXT PRIMARY KEY,       -- cv_…, the opaque conversation_ref
    agent_id    TEXT NOT NULL,
    provider    TEXT NOT NULL,
    address     TEXT NOT NULL,          -- the provider's own conversation address
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    account_id  TEXT
  );

  -- The primary key makes concurrent repeats of one key, on any instance, wait for each other.
  CREATE TABLE idempotency (
    key          TEXT PRIMARY KEY,      -- already scoped by account
    request_hash TEXT NOT NULL,         -- sha256 of path + canonical body without "wait"
    job_id       TEXT NOT NULL,
    created_at   BIGINT NOT NULL
  );
  CREATE INDEX idempotency_created ON idempotency (created_at);

  -- (H) The accounts served; the store reads disabled_at (their queued jobs are cancelled).
  CREATE TABLE accounts (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL,
    retention_days INTEGER,
    disabled_at    BIGINT,
    created_at     BIGINT NOT NULL
  );

  -- The webhook outbox: one row per final job with a callback_url, written in the
  -- transaction that made the job final, so no final job can miss its webhook.
  CREATE TABLE webhook_deliveries (
    job_id         TEXT PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    origin         TEXT NOT NULL,       -- scheme://host:port of callback_url
    state          TEXT NOT NULL,       -- pending | delivered | failed
    round          INTEGER NOT NULL,
    round_attempts INTEGER NOT NULL,
    next_at        BIGINT,              -- when the next attempt is due; null unless pending
    created_at     BIGINT NOT NULL
  );
  CREATE INDEX webhook_deliveries_next ON webhook_deliveries (next_at) WHERE state = 'pending';
  CREATE INDEX webhook_deliveries_origin ON webhook_deliveries (origin, next_at) WHERE state = 'pending';
  CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at) WHERE state <> 'pending';
  `;
