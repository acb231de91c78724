import type pg from 'pg';
import { PgRateLimiter } from './rate-limit.js';
import { PgAccountStore } from './account-store.js';
import { PgKeyStore } from './key-store.js';
import type { ProfileName } from '../../api/profile.js';
import type { RequestLimits } from '../../api/rate-limit.js';
import type { Clock } from '../../core/clock.js';
import type { IdGenerator } from '../../core/ids.js';
import { LIMITS } from '../../core/limits.js';
import { connect } from './connect.js';
import { DEFAULT_LEASE, Device, type LeaseTiming } from './devices.js';
import { PgJobStore } from './job-store.js';
import { migrate } from './schema.js';
import { TableChanges } from './table-changes.js';
import { PgSettingsStore } from './settings-store.js';
import { PgWebhookOutbox } from './outbox.js';
import { PgSigningSecret } from './signing-secret.js';
import { PgAccountSecrets } from './account-secrets.js';
import { claimDatabaseProfile } from './profile.js';

/** What opening a shared database needs besides its URL. */
export interface SharedDatabaseOptions {
  /** This data dir's device id (runtime-files.ts `deviceId`). */
  deviceId: string;
  /** The profile served: a database keeps the one it was first served in. */
  profile: ProfileName;
  clock: Clock;
  ids: IdGenerator;
  /** A copy of a shared table could not be read again after another instance changed it. */
  onError: (error: Error) => void;
  lease?: LeaseTiming;
}

/**
 * The PostgreSQL several instances share (`serve --database`): its schema brought up to
 * date, the job store with the other instances' moves published as they commit, the notices
 * of the small shared tables, and this instance's registration as a device. The service
 * takes its shared stores from here; what belongs to the machine stays in the data dir.
 */
export class SharedDatabase {
  private device: Device | undefined;

  readonly store: PgJobStore;
  readonly changes: TableChanges;
  readonly settings: PgSettingsStore;
  readonly signingSecret: PgSigningSecret;
  readonly accountSecrets: PgAccountSecrets;
  readonly accounts: PgAccountStore;
  readonly keys: PgKeyStore;
  /** Webhook deliveries, each claimed by one instance at a time. */
  readonly outbox: PgWebhookOutbox;
  /** Per-key request budgets, counted in the database so instances share each key's. */
  readonly limits: RequestLimits;
  private readonly clock: Clock;
  private readonly lease: LeaseTiming;

  private constructor(
    readonly pool: pg.Pool,
    options: SharedDatabaseOptions,
  ) {
    const { clock, ids, onError } = options;
    this.clock = clock;
    this.lease = options.lease ?? DEFAULT_LEASE;
    this.store = new PgJobStore(pool, options.deviceId);
    this.changes = new TableChanges(pool);
    this.settings = new PgSettingsStore(pool, this.changes, onError);
    this.signingSecret = new PgSigningSecret(pool, this.changes, ids, clock, onError);
    this.accountSecrets = new PgAccountSecrets(pool, ids, clock);
    this.outbox = new PgWebhookOutbox(pool, options.deviceId, this.changes);
    this.accounts = new PgAccountStore(pool, this.changes, clock, ids, onError);
    this.keys = new PgKeyStore(pool, this.changes, this.accounts, clock, ids, onError);
    this.limits = {
      read: new PgRateLimiter(pool, clock, 'read', LIMITS.readsPerMinute),
      write: new PgRateLimiter(pool, clock, 'write', LIMITS.writesPerMinute),
    };
  }

  /**
   * Connects, migrates (under the schema's advisory lock: instances starting together take
   * turns), claims the profile, listens, then copies the shared tables: listening first, so
   * no change made between the copy and the LISTEN is missed.
   */
  static async open(url: string, options: SharedDatabaseOptions): Promise<SharedDatabase> {
    const pool = await connect(url, { max: 20 });
    try {
      await migrate(pool);
      await claimDatabaseProfile(pool, options.profile);
      const shared = new SharedDatabase(pool, options);
      await shared.store.listen();
      await shared.changes.listen();
      await shared.settings.load();
      await shared.signingSecret.load();
      await shared.accounts.load();
      await shared.keys.load();
      return shared;
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
  }

  /**
   * Registers this instance as a device (online from now on, heartbeating) and starts
   * sweeping for devices that died. `baseUrl` is null when it answers no API (--no-api).
   */
  async join(identity: { name: string; baseUrl: string | null }, onError: (error: Error) => void): Promise<void> {
    this.device = new Device(this.pool, this.store, identity, this.clock, onError, this.lease);
    await this.device.start();
  }

  /** Whether the database answers (GET /readyz). */
  async answers(): Promise<boolean> {
    return this.pool.query('SELECT 1').then(
      () => true,
      () => false,
    );
  }

  /**
   * The clean stop, once the agents are stopped: this device's jobs go back to the queue at
   * once and it is offline for the others right away. Then the connections close.
   */
  async close(): Promise<void> {
    try {
      await this.device?.leave();
    } finally {
      this.changes.close();
      // Last-use writes under way finish before the connections close.
      await this.keys.close();
      await this.store.close();
    }
  }
}
