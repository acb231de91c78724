import type { RequestLimits } from '../keys/rate-limit.js';
import type { Clock } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { ProfileName } from '../core/profile-name.js';
import type { AccountStore } from '../keys/account-store.js';
import type { KeyStore } from '../keys/key-store.js';
import type { AgentPool } from '../queue/agent-pool.js';
import type { AgentTable } from '../queue/agent-table.js';
import type { ClusterAgents } from '../queue/cluster-agents.js';
import type { JobStore } from '../queue/job-store.js';
import type { DeviceIdentity } from '../queue/local-agents.js';
import type { UsageHistory } from '../queue/usage-history.js';
import type { SettingsStore } from '../settings/settings-store.js';
import type { AccountSecrets } from '../webhooks/account-secrets.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import type { SigningSecret } from '../webhooks/signing-secret.js';

/**
 * Everything ChatBridge keeps, behind the ports its features own: SQLite in the data dir, or
 * a PostgreSQL several instances share (`--database`). Nothing outside main/storage/ knows
 * which: the service and every command open one with `openStorage` and use what it holds.
 */
export interface Storage {
  /** "The data dir …" or "The database …", for messages. */
  readonly place: string;
  /** Several instances may share it (PostgreSQL): their changes arrive as notices. */
  readonly shared: boolean;
  readonly jobs: JobStore;
  readonly outbox: WebhookOutbox;
  readonly settings: SettingsStore;
  readonly accounts: AccountStore;
  readonly keys: KeyStore;
  readonly signingSecret: SigningSecret;
  readonly accountSecrets: AccountSecrets;
  readonly usageHistory: UsageHistory;
  /** Per-key request budgets counted where instances share them; null: each counts its own, in memory. */
  readonly requestLimits: RequestLimits | null;
  /** The retention's last step; null where the engine gives space back by itself (PostgreSQL's autovacuum). */
  readonly reclaim: Reclaim | null;
  /** The profile it was first served in; personal until it was served at all. */
  storedProfile(): Promise<ProfileName>;
  /** Agents by name (every device's, where instances share it), for reports. */
  agentNames(): Promise<Map<string, { name: string }>>;
  /** Whether a running instance sends webhooks now (a redelivery goes out at once). */
  someoneServes(): Promise<boolean>;
  close(): Promise<void>;
}

/** Storage as a running service holds it. */
export interface ServedStorage extends Storage {
  /** This machine's agents, kept in the data dir whichever engine holds the rest (AgentTable). */
  readonly agents: AgentTable;
  /** This device's agents as the API reports them, and every other device's where instances share the storage. */
  devices(pool: AgentPool, self: Omit<DeviceIdentity, 'id'>, onError: (error: Error) => void): DeviceAgents;
  /** GET /readyz: the storage takes a write now. */
  answers(): Promise<boolean>;
  /** Registers this instance among the devices, once its API listens (a no-op on a data dir alone). */
  join(identity: { name: string; baseUrl: string | null }, onError: (error: Error) => void): Promise<void>;
  /** Calls `onChange` when another process (the command line) commits to the data dir's database. */
  watchLocalChanges(onChange: () => void): () => void;
}

export interface DeviceAgents extends ClusterAgents {
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface StorageOptions {
  /** The data dir: SQLite's home, and this machine's own (agents, bundles) whatever the engine. */
  dataDir: string;
  /** A PostgreSQL URL: jobs, keys, settings and webhooks are shared there instead. */
  databaseUrl?: string | undefined;
  clock: Clock;
  ids: IdGenerator;
  /** A command that only reads refuses a data dir that does not exist rather than make one. */
  readOnly?: boolean;
}

/**
 * What a service starting on a shared database does about other roles that can reach it:
 * refuses to start (`check`, the default), closes the database to them (`fix`, serve
 * --fix-grants), or goes on with a warning (`keep`, for an operator who manages grants).
 */
export type GrantsPolicy = 'check' | 'fix' | 'keep';

export interface ServeOptions extends StorageOptions {
  /** This data dir's device id among the instances sharing a database. */
  deviceId: string;
  /** The profile served: a data dir and a database each keep the one they were first served in. */
  profile: ProfileName;
  /** A shared table could not be read again after another instance changed it. */
  onError: (error: Error) => void;
  /** A shared database's grants; `check` unless given. */
  grants?: GrantsPolicy | undefined;
  /** A line to warn with at start (the grants closed, or left open on purpose). */
  onWarning?: ((line: string) => void) | undefined;
}

/**
 * The last step of a sweep: gives the freed space back to the file system, `pages` per step,
 * awaiting `between` after each while `keepGoing` holds; resolves with the pages given back.
 * SQLite's (sqlite/reclaim.ts); PostgreSQL's autovacuum does it by itself.
 */
export type Reclaim = (pages: number, between: () => Promise<void>, keepGoing: () => boolean) => Promise<number>;
