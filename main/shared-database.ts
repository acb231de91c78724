import type pg from 'pg';
import type { Clock } from './core/clock.js';
import { connect } from './queue/postgres/connect.js';
import { DEFAULT_LEASE, Device, type DeviceStatus, type LeaseTiming } from './queue/postgres/devices.js';
import { PgJobStore } from './queue/postgres/job-store.js';
import { migrate } from './queue/postgres/schema.js';
import { TableChanges } from './queue/postgres/table-changes.js';

/**
 * The PostgreSQL several instances share (`serve --database`): its schema brought up to
 * date, the job store with the other instances' moves published as they commit, the notices
 * of the small shared tables, and this instance's registration as a device. The service
 * takes its shared stores from here; what belongs to the machine stays in the data dir.
 */
export class SharedDatabase {
  private device: Device | undefined;

  private constructor(
    readonly pool: pg.Pool,
    readonly store: PgJobStore,
    readonly changes: TableChanges,
    private readonly clock: Clock,
    private readonly lease: LeaseTiming,
  ) {}

  /** Connects, migrates (under the schema's advisory lock: instances starting together take turns) and listens. */
  static async open(url: string, deviceId: string, clock: Clock, lease: LeaseTiming = DEFAULT_LEASE): Promise<SharedDatabase> {
    const pool = await connect(url, { max: 20 });
    try {
      await migrate(pool);
      const shared = new SharedDatabase(pool, new PgJobStore(pool, deviceId), new TableChanges(pool), clock, lease);
      await shared.store.listen();
      await shared.changes.listen();
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

  /** Every device on the database, as this one sees them now. */
  devices(): Promise<DeviceStatus[]> {
    return this.device ? this.device.list() : Promise.resolve([]);
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
      await this.store.close();
    }
  }
}
