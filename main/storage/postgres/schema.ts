import type pg from 'pg';
import { PgConnectError } from './connect.js';

/**
 * Each entry moves the schema one version forward; `chatbridge_schema.version` records how
 * far a database has come. Append, never edit: installed databases have run the old entries.
 * The rows mean what the SQLite schema's rows mean (main/storage/sqlite/db.ts); times are epoch ms.
 */
const MIGRATIONS: string[] = [
  `
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
  `,
  `
  -- A device that stopped cleanly says so (its jobs are already back in the queue): it is
  -- offline at once, not a lease later. Registering again clears it.
  ALTER TABLE devices ADD COLUMN left_at BIGINT;
  `,
  `
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
  `,
  `
  -- Each device's agents as its pool last published them, for every instance's API: which
  -- can take a job anywhere. Rewritten whole by their device on each change; an agent counts
  -- only while its device is online (devices.heartbeat_at, left_at).
  CREATE TABLE device_agents (
    id             TEXT PRIMARY KEY,    -- the agent's id (agt_…), unique across devices
    device_id      TEXT NOT NULL,
    provider       TEXT NOT NULL,
    name           TEXT NOT NULL,
    enabled        BOOLEAN NOT NULL,
    position       INTEGER NOT NULL,    -- the user's order on its device
    created_at     BIGINT NOT NULL,
    cap_per_hour   INTEGER,
    state          TEXT NOT NULL,       -- needs_login | idle | busy | resting | paused | error
    ready          BOOLEAN NOT NULL,    -- idle and not pausing between jobs: takes a job now, caps aside
    cooldown_until BIGINT,              -- resting after a usage limit until then
    pause_until    BIGINT               -- pausing between jobs until then
  );
  CREATE INDEX device_agents_device ON device_agents (device_id);
  `,
  `
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
  `,
  `
  -- API keys, as in SQLite (main/keys/key-store.ts): every instance keeps them in memory by
  -- hash and reads them again on the table's change notice. last_used_at is written at
  -- most once a minute per key and announces nothing (it is not worth a re-read anywhere).
  CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    hash         TEXT NOT NULL UNIQUE,  -- sha256 of the secret; the secret itself is never stored
    hint         TEXT NOT NULL,         -- first characters, to recognise a key in a list
    scopes       TEXT NOT NULL,         -- space-separated
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT,
    revoked_at   BIGINT,
    last_used_at BIGINT,
    account_id   TEXT                   -- (H) accounts.id; null in Profile F
  );
  `,
  `
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
  `,
  `
  -- The variant (a model or mode of the provider's picker) the caller asked for, or null for
  -- the account's default; and the model the page said answered, or null where it does not say.
  ALTER TABLE jobs ADD COLUMN variant TEXT;
  ALTER TABLE jobs ADD COLUMN model_used TEXT;
  `,
  `
  -- The locks instances take turns by (locks.ts), rows of our own: any role connected to the
  -- database may take an advisory key, but only one with rights on this table can lock a row.
  CREATE TABLE locks (name TEXT PRIMARY KEY);
  INSERT INTO locks (name) VALUES ('sweep'), ('caps');
  `,
  `
  -- Where an attempt's answer can be found again once its prompt went: the conversation's
  -- address (null until the page showed one) and the assistant turns before the send (null
  -- while the prompt has not gone). A restart collects that answer instead of resending.
  ALTER TABLE attempts ADD COLUMN sent_conversation TEXT;
  ALTER TABLE attempts ADD COLUMN sent_turns_before INTEGER;
  `,
];

/** The schema version this ChatBridge writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * One key for every ChatBridge migrating this database: instances starting together take
 * turns, and the second finds the work done. Advisory, since it is taken before any table
 * exists; another role could take it too, so it is waited for at most MIGRATION_TIMEOUT (a
 * service checks the grants before it migrates, and `migrate` closes them: see grants.ts).
 */
const MIGRATION_LOCK = 0x63_62_6d_69_67_72_61_74n; // "cbmigrat"

/** How long a migration may wait for the lock, and each of its steps may run. */
const MIGRATION_TIMEOUT = '10min';

/** Brings the schema up to SCHEMA_VERSION; returns the version found and the version left. */
export async function migrate(pool: pg.Pool): Promise<{ from: number; to: number }> {
  const client = await pool.connect();
  try {
    // Another instance's migration may hold the lock for a while, and a step may rewrite a
    // big table: this connection waits and runs longer than a request's (connect.ts).
    await client.query(`SET lock_timeout = '${MIGRATION_TIMEOUT}'; SET statement_timeout = '${MIGRATION_TIMEOUT}'`);
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS chatbridge_schema (version INTEGER NOT NULL)');
      const found = await client.query<{ version: number }>('SELECT version FROM chatbridge_schema');
      const from = found.rows[0]?.version ?? 0;
      if (from > MIGRATIONS.length) {
        throw new PgConnectError(`The database was written by a newer ChatBridge (schema ${from}, this one knows ${MIGRATIONS.length}).`);
      }
      if (found.rows.length === 0) await client.query('INSERT INTO chatbridge_schema (version) VALUES (0)');
      // Each step commits with its version, so an interrupted upgrade resumes where it stopped.
      for (let version = from; version < MIGRATIONS.length; version++) {
        await client.query('BEGIN');
        try {
          await client.query(MIGRATIONS[version]!);
          await client.query('UPDATE chatbridge_schema SET version = $1', [version + 1]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
      return { from, to: MIGRATIONS.length };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]);
    }
  } finally {
    // A connection that cannot take back the longer timeouts is closed rather than reused.
    const reset = await client.query('RESET lock_timeout; RESET statement_timeout').then(() => undefined, (error: Error) => error);
    client.release(reset);
  }
}
