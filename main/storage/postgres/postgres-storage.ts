import type pg from 'pg';
import { LIMITS } from '../../core/limits.js';
import type { AgentPool } from '../../queue/agent-pool.js';
import type { DeviceIdentity } from '../../queue/local-agents.js';
import type { ServedStorage, ServeOptions, Storage, StorageOptions } from '../ports.js';
import { openDatabase } from '../sqlite/db.js';
import { claimProfile } from '../sqlite/profile.js';
import { servedLocally } from '../sqlite/sqlite-storage.js';
import { PgAccountSecrets } from './account-secrets.js';
import { PgAccountStore } from './account-store.js';
import { PgClusterAgents } from './cluster-agents.js';
import { connect } from './connect.js';
import { guardGrants } from './grants.js';
import { Device, listDevices } from './devices.js';
import { PgJobStore } from './job-store.js';
import { PgKeyStore } from './key-store.js';
import { PgWebhookOutbox } from './outbox.js';
import { claimDatabaseProfile, storedDatabaseProfile } from './profile.js';
import { PgRateLimiter } from './rate-limit.js';
import { migrate } from './schema.js';
import { PgSettingsStore } from './settings-store.js';
import { PgSigningSecret } from './signing-secret.js';
import { TableChanges } from './table-changes.js';
import { PgUsageHistory } from './usage-history.js';

/**
 * The command line is no device: it deletes, it never dispatches, re-queues or claims a
 * delivery, which are the only moves that use a device id.
 */
const COMMAND_DEVICE = 'cli';

/** The shared stores on one pool, with what a command and a service both read of them. */
function postgresStorage(pool: pg.Pool, url: string, deviceId: string, { clock, ids }: StorageOptions, onError: (error: Error) => void) {
  const changes = new TableChanges(pool);
  const accounts = new PgAccountStore(pool, changes, clock, ids, onError);
  const jobs = new PgJobStore(pool, deviceId);
  const storage = {
    place: `The database ${decodeURIComponent(new URL(url).pathname.slice(1))}`,
    shared: true,
    jobs,
    outbox: new PgWebhookOutbox(pool, deviceId, changes),
    settings: new PgSettingsStore(pool, changes, onError),
    accounts,
    keys: new PgKeyStore(pool, changes, accounts, clock, ids, onError),
    signingSecret: new PgSigningSecret(pool, changes, ids, clock, onError),
    accountSecrets: new PgAccountSecrets(pool, ids, clock),
    usageHistory: new PgUsageHistory(pool),
    // Instances share each key's budget, so it is counted in the database.
    requestLimits: {
      read: new PgRateLimiter(pool, clock, 'read', LIMITS.readsPerMinute),
      write: new PgRateLimiter(pool, clock, 'write', LIMITS.writesPerMinute),
    },
    reclaim: null,
    storedProfile: () => storedDatabaseProfile(pool),
    agentNames: async () =>
      new Map((await pool.query<{ id: string; name: string }>(`SELECT id, name FROM device_agents`)).rows.map((a) => [a.id, a])),
    someoneServes: async () => (await listDevices(pool, clock.now())).some((d) => d.online),
    close: async () => {
      changes.close();
      // Last-use writes under way finish before the connections close.
      await storage.keys.close();
      // The job store's close ends the pool.
      await jobs.close();
    },
  };
  return { storage, changes, load: () => Promise.all([storage.settings.load(), storage.signingSecret.load(), accounts.load(), storage.keys.load()]) };
}

/**
 * Connects, runs `first` (a service's check of the grants: before any table is made or
 * read), and brings the schema up to this version's (under its advisory lock: instances
 * starting together take turns).
 */
async function connected<T>(url: string, max: number, then: (pool: pg.Pool) => Promise<T>, first: (pool: pg.Pool) => Promise<void> = async () => {}): Promise<T> {
  const pool = await connect(url, { max });
  try {
    await first(pool);
    await migrate(pool);
    return await then(pool);
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
}

/** The shared database as a command sees it: read when the command runs, never listened to. */
export function openPostgresStorage(url: string, options: StorageOptions): Promise<Storage> {
  return connected(url, 2, async (pool) => {
    const { storage, load } = postgresStorage(pool, url, COMMAND_DEVICE, options, (error) => {
      throw error;
    });
    await load();
    return storage;
  });
}

/**
 * The PostgreSQL several instances share (`serve --database`): its schema brought up to
 * date, the profile claimed, the job store with the other instances' moves published as they
 * commit, and the notices of the small shared tables; listening first, then reading, so no
 * change made between the copy and the LISTEN is missed. What belongs to the machine (its
 * agents) stays in the data dir's database.
 */
export async function servePostgresStorage(url: string, options: ServeOptions): Promise<ServedStorage> {
  const db = openDatabase(options.dataDir);
  const grants = async (pool: pg.Pool) => {
    const said = await guardGrants(pool, options.grants ?? 'check');
    if (said) options.onWarning?.(said);
  };
  try {
    claimProfile(db, options.dataDir, options.profile);
    return await connected(url, 20, async (pool) => {
      await claimDatabaseProfile(pool, options.profile);
      const { storage, changes, load } = postgresStorage(pool, url, options.deviceId, options, options.onError);
      await storage.jobs.listen();
      await changes.listen();
      await load();
      const local = servedLocally(db);
      let device: Device | undefined;
      return {
        ...storage,
        ...local,
        devices: (agents: AgentPool, self: Omit<DeviceIdentity, 'id'>, onError: (error: Error) => void) =>
          new PgClusterAgents(pool, changes, agents, { id: options.deviceId, ...self }, options.clock, onError),
        answers: async () => (await local.answers()) && (await pool.query('SELECT 1').then(() => true, () => false)),
        join: async (identity, onError) => {
          device = new Device(pool, storage.jobs, identity, options.clock, onError);
          await device.start();
        },
        // The clean stop, once the agents are stopped: this device's jobs go back to the queue
        // at once and it is offline for the others right away. Then the connections close.
        close: async () => {
          try {
            await device?.leave();
          } finally {
            await storage.close();
            db.close();
          }
        },
      };
    }, grants);
  } catch (error) {
    db.close();
    throw error;
  }
}
