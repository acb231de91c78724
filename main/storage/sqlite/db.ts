import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { StorageRefused } from '../refused.js';

export type Db = Database.Database;

/** The data dir cannot be created or its database opened: a user-facing condition. */
export class DataDirError extends StorageRefused {}

const DB_FILE = 'chatbridge.db';

/**
 * Each entry moves the schema one version forward; `PRAGMA user_version` records how far a
 * database has come. Append, never edit: installed databases have run the old entries.
 */
const MIGRATIONS: string[] = [
  `
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
  `,
  `
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
  `,
  `
  -- What the agent said about a failed attempt: the page's error text, or the control it
  -- could not find when the provider's page changed. Shown to the person, never parsed.
  ALTER TABLE attempts ADD COLUMN detail TEXT;
  `,
  `
  -- Retention: a finished job past the account's retention period loses its prompt (set to
  -- '') and response (null); the rest of the row stays, for usage history and continuation.
  ALTER TABLE jobs ADD COLUMN content_pruned_at INTEGER;
  -- The API key that submitted the job ('admin' for the dashboard's token); null for jobs
  -- accepted before this column existed.
  ALTER TABLE jobs ADD COLUMN api_key_id TEXT;
  -- What retention still has to prune, oldest first.
  CREATE INDEX jobs_unpruned ON jobs (finished_at) WHERE finished_at IS NOT NULL AND content_pruned_at IS NULL;
  -- Usage history reads finished jobs by time and needs nothing else of the row: covering,
  -- so its scans never touch the (large) prompt and response pages.
  CREATE INDEX jobs_finished ON jobs (finished_at, provider, req_provider, agent_id, api_key_id, status, error_code, created_at, queue_ms, run_ms, attempts)
    WHERE finished_at IS NOT NULL;
  -- Webhook deliveries that are over, by age, for clearing old ones.
  CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at) WHERE state <> 'pending';
  `,
  `
  -- Profile H: the accounts the operator serves (acct_…). Keys, jobs and conversations
  -- belong to one; in Profile F the install is the one account and account_id stays null.
  CREATE TABLE accounts (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL,
    retention_days INTEGER,             -- finished jobs lose their text after this; null keeps it
    disabled_at    INTEGER,             -- its keys get 401 and its queued jobs are cancelled
    created_at     INTEGER NOT NULL
  ) WITHOUT ROWID;
  ALTER TABLE api_keys ADD COLUMN account_id TEXT;
  ALTER TABLE jobs ADD COLUMN account_id TEXT;
  ALTER TABLE conversations ADD COLUMN account_id TEXT;
  `,
  `
  -- Guardrails against bans, per agent: the pause between its jobs (null: the global
  -- setting) and its browser's proxy (null: a direct connection).
  ALTER TABLE agents ADD COLUMN pause_ms INTEGER;
  ALTER TABLE agents ADD COLUMN proxy TEXT;
  `,
  `
  -- A rest after a usage limit outlives a restart: until when (epoch ms) the agent takes no
  -- job, as the provider said; null when it does not rest.
  ALTER TABLE agents ADD COLUMN rest_until INTEGER;
  `,
  `
  -- (H) Each account's own webhook signing secret, made on first need; the service's own
  -- (webhook_signing_secret) signs the deliveries of jobs without an account.
  CREATE TABLE webhook_account_secrets (
    account_id TEXT PRIMARY KEY,
    secret     TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) WITHOUT ROWID;

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
  -- Where an attempt's answer can be found again once its prompt went: the conversation's
  -- address (null until the page showed one) and the assistant turns before the send (null
  -- while the prompt has not gone). A restart collects that answer instead of resending.
  ALTER TABLE attempts ADD COLUMN sent_conversation TEXT;
  ALTER TABLE attempts ADD COLUMN sent_turns_before INTEGER;
  `,
];

/** Whether the data dir holds a database yet (anything set up there). */
export function holdsDatabase(dataDir: string): boolean {
  return existsSync(join(dataDir, DB_FILE));
}

/**
 * Opens (creating if needed) the database in the data dir. WAL with synchronous=FULL: a
 * commit is on disk before it returns, so an accepted job survives power loss, not only a
 * killed process. The cost of that fsync is paid once per group of submissions (GroupCommit).
 */
export function openDatabase(dataDir: string, { create = true }: { create?: boolean } = {}): Db {
  let db: Db;
  // Commands that only read must not leave a data dir behind where there was none.
  if (!create && !holdsDatabase(dataDir)) {
    throw new DataDirError(`Nothing is set up in ${dataDir} yet (no ChatBridge data there).`);
  }
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = join(dataDir, DB_FILE);
    ownerOnly(file);
    db = new Database(file, { timeout: 5000 });
  } catch (error) {
    throw new DataDirError(`Cannot use the data dir ${dataDir}: ${(error as Error).message}`);
  }
  // Only takes effect on a database without tables yet; older ones get it in reclaimable().
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  reclaimable(db);
  return db;
}

/** A fresh database in memory, migrated: the queue's unit tests run on the real store without a disk. */
export function memoryDatabase(): Db {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

const INCREMENTAL = 2;

/**
 * Pages freed by pruning and deletion are handed back to the file system by
 * `reclaimSpace`, which needs `auto_vacuum = INCREMENTAL`. A database created before that
 * setting gets it through one full VACUUM, the first time this version opens it. Busy
 * (another process holds it open in a transaction), it is tried again at the next open.
 */
function reclaimable(db: Db): void {
  if (db.pragma('auto_vacuum', { simple: true }) === INCREMENTAL) return;
  try {
    db.exec('VACUUM');
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
  }
}

/**
 * Returns up to `pages` free pages to the file system, in one short write; returns how
 * many free pages are left. Called in small steps so no request waits long behind it.
 */
export function reclaimSpace(db: Db, pages: number): number {
  db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
  return db.pragma('freelist_count', { simple: true }) as number;
}

/**
 * The database file is made 0600 before SQLite opens it: SQLite creates its -wal and -shm
 * files with the database file's own mode, whatever the umask. Files left 0644 by an
 * older version are set back to 0600.
 */
function ownerOnly(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(f, 0o600);
    } catch (error) {
      // The last connection to close removes -wal and -shm.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/**
 * Each step reads the version and applies one migration under the write lock, so that
 * processes opening a new data dir at the same moment (the server and a command) never
 * run the same migration twice.
 */
function migrate(db: Db): void {
  const step = db.transaction((): boolean => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) {
      throw new Error(
        `The database was written by a newer ChatBridge (schema ${version}, this one knows ${MIGRATIONS.length}).`,
      );
    }
    if (version === MIGRATIONS.length) return true;
    db.exec(MIGRATIONS[version]!);
    db.pragma(`user_version = ${version + 1}`);
    return false;
  });
  while (!step.immediate());
}
