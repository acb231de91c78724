/** Schema 1: The first schema: jobs and their attempts, conversations, idempotency keys, API keys, agents, settings. */
export const sql = `
  CREATE TABLE jobs (
    id               TEXT PRIMARY KEY,
    status           TEXT NOT NULL,
    prompt           TEXT NOT NULL,
    req_provider     TEXT,              -- the provider asked for (a constraint), or null
    req_agent_id     TEXT,              -- the agent asked for (a constraint), or null
    conversation_in  TEXT,              -- conversation_ref to continue, or null
    priority         INTEGER NOT NULL,
    timeout_ms       INTEGER NOT NULL,
    deadline_at      INTEGER NOT NULL,  -- created_at + deadline_ms
    max_attempts     INTEGER NOT NULL,
    callback_url     TEXT,
    metadata         TEXT NOT NULL,     -- JSON exactly as received
    created_at       INTEGER NOT NULL,  -- epoch ms
    attempts         INTEGER NOT NULL DEFAULT 0,
    queue_ms         INTEGER,
    run_ms           INTEGER NOT NULL DEFAULT 0,
    agent_id         TEXT,              -- the agent of the latest attempt
    provider         TEXT,              -- the provider of the latest attempt
    response         TEXT,
    conversation_ref TEXT,              -- the conversation this job's answer belongs to
    error_code       TEXT,
    error_message    TEXT,
    finished_at      INTEGER
  ) WITHOUT ROWID;
  -- Dispatch order: higher priority, then older, then lower id. Only live rows are indexed.
  CREATE INDEX jobs_queue ON jobs (priority DESC, created_at, id) WHERE status = 'queued';
  CREATE INDEX jobs_deadline ON jobs (deadline_at) WHERE status IN ('queued', 'dispatched');
  CREATE INDEX jobs_dispatched ON jobs (status) WHERE status = 'dispatched';

  CREATE TABLE attempts (
    job_id      TEXT NOT NULL,
    attempt     INTEGER NOT NULL,
    agent_id    TEXT NOT NULL,
    provider    TEXT NOT NULL,
    started_at  INTEGER NOT NULL,
    ended_at    INTEGER,
    outcome     TEXT,                   -- succeeded | failed | timed_out | cancelled | agent_lost
    error_code  TEXT,
    PRIMARY KEY (job_id, attempt)
  ) WITHOUT ROWID;
  -- The rolling hourly window counts attempt starts.
  CREATE INDEX attempts_started ON attempts (started_at);

  CREATE TABLE conversations (
    id          TEXT PRIMARY KEY,       -- cv_…, the opaque conversation_ref
    agent_id    TEXT NOT NULL,
    provider    TEXT NOT NULL,
    address     TEXT NOT NULL,          -- the provider's own conversation address
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE idempotency (
    key          TEXT PRIMARY KEY,
    request_hash TEXT NOT NULL,         -- sha256 of path + canonical body without "wait"
    job_id       TEXT NOT NULL,
    created_at   INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX idempotency_created ON idempotency (created_at);

  CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    hash         TEXT NOT NULL UNIQUE,  -- sha256 of the secret; the secret itself is never stored
    hint         TEXT NOT NULL,         -- first characters, to recognise a key in a list
    scopes       TEXT NOT NULL,         -- space-separated
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER,
    revoked_at   INTEGER,
    last_used_at INTEGER
  ) WITHOUT ROWID;

  CREATE TABLE agents (
    id           TEXT PRIMARY KEY,
    provider     TEXT NOT NULL,
    name         TEXT NOT NULL,
    enabled      INTEGER NOT NULL DEFAULT 1,
    position     INTEGER NOT NULL,      -- the user's order, for the "ordered" rotation
    cap_per_hour INTEGER,               -- null: no cap
    created_at   INTEGER NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL                 -- JSON
  ) WITHOUT ROWID;
  `;
