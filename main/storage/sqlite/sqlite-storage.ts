import { readServerInfo } from '../../core/runtime-files.js';
import type { AgentPool } from '../../queue/agent-pool.js';
import { LocalAgents, type DeviceIdentity } from '../../queue/local-agents.js';
import type { DeviceAgents, ServedStorage, ServeOptions, Storage, StorageOptions } from '../ports.js';
import { SqliteAccountStore } from './account-store.js';
import { SqliteAgentTable } from './agent-table.js';
import { memoryDatabase, openDatabase, type Db } from './db.js';
import { SqliteJobStore } from './job-store.js';
import { SqliteKeyStore } from './key-store.js';
import { SqliteWebhookOutbox } from './outbox.js';
import { claimProfile, storedProfile } from './profile.js';
import { sqliteReclaim } from './reclaim.js';
import { SqliteSettingsStore, watchExternalChanges } from './settings-store.js';
import { SqliteAccountSecrets, SqliteSigningSecret } from './webhook-secrets.js';
import { SqliteUsageHistory } from './usage-history.js';

/** Everything in the data dir's one SQLite file. */
function sqliteStorage(db: Db, { dataDir, clock, ids }: StorageOptions): Storage {
  const outbox = new SqliteWebhookOutbox(db);
  const accounts = new SqliteAccountStore(db, clock, ids);
  const jobs = new SqliteJobStore(db, outbox);
  return {
    place: `The data dir ${dataDir}`,
    shared: false,
    jobs,
    outbox,
    settings: new SqliteSettingsStore(db),
    accounts,
    keys: new SqliteKeyStore(db, accounts, clock, ids),
    signingSecret: new SqliteSigningSecret(db, ids, clock),
    accountSecrets: new SqliteAccountSecrets(db, ids, clock),
    usageHistory: new SqliteUsageHistory(db),
    requestLimits: null,
    reclaim: sqliteReclaim(db),
    storedProfile: async () => storedProfile(db),
    agentNames: async () => new Map(db.prepare<[], { id: string; name: string }>(`SELECT id, name FROM agents`).all().map((a) => [a.id, a])),
    // The data dir's server keeps its address in server.json while it runs.
    someoneServes: async () => readServerInfo(dataDir) !== null,
    close: async () => {
      // Submissions waiting for the group commit are written first.
      await jobs.close();
      db.close();
    },
  };
}

export function openSqliteStorage(options: StorageOptions): Storage {
  return sqliteStorage(openDatabase(options.dataDir, { create: !options.readOnly }), options);
}

export function serveSqliteStorage(options: ServeOptions): ServedStorage {
  const db = openDatabase(options.dataDir);
  try {
    claimProfile(db, options.dataDir, options.profile);
  } catch (error) {
    db.close();
    throw error;
  }
  const storage = sqliteStorage(db, options);
  // A submission cut by a crash may have left its files without their job.
  (storage.jobs as SqliteJobStore).dropUnclaimedFiles();
  return { ...storage, ...servedLocally(db) };
}

/** Storage as a service holds it, in memory: gone when closed, and no other process sees it. */
export function serveMemoryStorage(options: Pick<StorageOptions, 'clock' | 'ids'>): ServedStorage {
  const db = memoryDatabase();
  return {
    ...sqliteStorage(db, { ...options, dataDir: ':memory:' }),
    place: 'A database in memory',
    someoneServes: async () => false,
    ...servedLocally(db),
  };
}

/**
 * What a service needs of the data dir's database, whichever engine holds the rest: its
 * agents live here, and the command line's changes to them are seen here.
 */
export function servedLocally(db: Db): Pick<ServedStorage, 'agents' | 'devices' | 'answers' | 'join' | 'watchLocalChanges'> {
  return {
    agents: new SqliteAgentTable(db),
    devices: (pool: AgentPool, self: Omit<DeviceIdentity, 'id'>): DeviceAgents => new LocalAgents(pool, { id: 'local', ...self }),
    // A read-only, full, locked or closed database fails to take the write lock.
    answers: async () => {
      try {
        db.transaction(() => {}).immediate();
        return true;
      } catch {
        return false;
      }
    },
    join: async () => {},
    watchLocalChanges: (onChange) => watchExternalChanges(db, onChange),
  };
}
