import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import type { AgentPool } from '../../queue/agent-pool.js';
import { summarize, type ClusterAgent, type ClusterAgents, type ClusterDevice } from '../../queue/cluster-agents.js';
import type { DeviceIdentity } from '../../queue/local-agents.js';
import { DEFAULT_LEASE, DEVICES_TABLE, Every, type LeaseTiming } from './devices.js';
import type { TableChanges } from './table-changes.js';
import { changeSharedTable } from './shared-table.js';
import { Listeners } from '../../core/listeners.js';
import { OneAtATime } from '../../core/one-at-a-time.js';

const TABLE = 'device_agents';

/** A row of `devices`, as liveness is judged from it. */
interface DeviceRow {
  id: string;
  name: string;
  base_url: string | null;
  heartbeat_at: number;
  left_at: number | null;
}

/**
 * The agents of every device sharing the database. This device publishes what its pool says
 * of its agents (`device_agents`) whenever the pool changes, a burst of changes as one write,
 * and announces it; every instance keeps the other devices' agents in memory, read again on
 * that notice. Its own agents it reads from its pool, live. Every `sweepMs` it re-reads the
 * devices' heartbeats; whether a device is online is judged at each read, on this instance's
 * clock, so a device that stopped beating stops counting exactly a lease after its last beat
 * (a live one is seen at most heartbeatMs + sweepMs behind, well within the lease).
 */
export class PgClusterAgents implements ClusterAgents {
  private others: ClusterAgent[] = [];
  private known: DeviceRow[] = [];
  /** Whether the other devices' agents must be read again (a device announced a change). */
  private agentsStale = true;
  private lastPublished = '';
  /** What the listeners were last told of, to tell them only of a change. */
  private lastSeen = '';
  private readonly listeners = new Listeners();
  private readonly publisher: OneAtATime;
  private readonly reader: OneAtATime;
  private readonly refresh: Every;
  private stops: (() => void)[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly changes: TableChanges,
    private readonly local: AgentPool,
    private readonly self: DeviceIdentity,
    private readonly clock: Clock,
    /** A publication or read that failed (the database out of reach): the next tick tries again. */
    onError: (error: Error) => void,
    private readonly timing: LeaseTiming = DEFAULT_LEASE,
  ) {
    this.publisher = new OneAtATime(() => this.publish(), onError);
    this.reader = new OneAtATime(() => this.read(), onError);
    // A failed publication is retried here too: the pool may not change again for hours.
    this.refresh = new Every(clock, timing.sweepMs, () => Promise.all([this.reader.run(), this.publisher.run()]), onError);
  }

  /** Publishes this device's agents, reads every other device's, then follows both. */
  async start(): Promise<void> {
    this.stops = [
      this.changes.on(TABLE, () => {
        this.agentsStale = true;
        void this.reader.run();
      }),
      this.changes.on(DEVICES_TABLE, () => void this.reader.run()),
      this.local.watch(() => {
        this.tellIfChanged();
        void this.publisher.run();
      }),
    ];
    await this.publisher.run();
    await this.reader.run();
    this.refresh.start();
  }

  /** Stops following and publishing (the published agents stay: the device shows offline with them). */
  async close(): Promise<void> {
    for (const stop of this.stops.splice(0)) stop();
    this.refresh.stop();
    await this.settled();
  }

  /** Resolves once the publication and reads under way, if any, are done. */
  async settled(): Promise<void> {
    await Promise.all([this.refresh.settled(), this.publisher.idle(), this.reader.idle()]);
  }

  devices(): ClusterDevice[] {
    const here: ClusterDevice = {
      id: this.self.id,
      name: this.self.name,
      base_url: this.self.baseUrl(),
      online: true,
      agents: summarize(this.local, this.self.id),
    };
    const there = this.known
      .filter((d) => d.id !== this.self.id)
      .map((d): ClusterDevice => {
        const online = this.isOnline(d);
        const agents = this.others.filter((a) => a.device_id === d.id);
        return { id: d.id, name: d.name, base_url: d.base_url, online, agents: online ? agents : agents.map(offline) };
      })
      .sort((a, b) => Number(b.online) - Number(a.online) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    return [here, ...there];
  }

  online(): ClusterAgent[] {
    return this.devices()
      .filter((d) => d.online)
      .flatMap((d) => d.agents);
  }

  get(id: string): ClusterAgent | undefined {
    if (this.local.get(id)) return summarize(this.local, this.self.id).find((a) => a.id === id);
    const agent = this.others.find((a) => a.id === id);
    if (!agent) return undefined;
    const device = this.known.find((d) => d.id === agent.device_id);
    return device && this.isOnline(device) ? agent : offline(agent);
  }

  onChange(listener: () => void): () => void {
    return this.listeners.on(listener);
  }

  private isOnline(d: DeviceRow): boolean {
    return d.left_at === null && d.heartbeat_at >= this.clock.now() - this.timing.leaseMs;
  }

  /** This device's agents, in one transaction that announces them; nothing when they are as last published. */
  private async publish(): Promise<void> {
    const agents = JSON.stringify(summarize(this.local, this.self.id));
    if (agents === this.lastPublished) return;
    await changeSharedTable(this.pool, TABLE, async (c) => {
      await c.query(`DELETE FROM device_agents WHERE device_id = $1`, [this.self.id]);
      await c.query(`INSERT INTO device_agents SELECT * FROM json_populate_recordset(NULL::device_agents, $1)`, [agents]);
    });
    this.lastPublished = agents;
  }

  /** The devices' liveness, and their agents when a device announced a change. */
  private async read(): Promise<void> {
    const stale = this.agentsStale;
    this.agentsStale = false;
    try {
      const devices = await this.pool.query<DeviceRow>(`SELECT id, name, base_url, heartbeat_at, left_at FROM devices`);
      if (stale) {
        const agents = await this.pool.query<ClusterAgent>(
          `SELECT * FROM device_agents WHERE device_id <> $1 ORDER BY device_id, position, created_at`,
          [this.self.id],
        );
        this.others = agents.rows;
      }
      this.known = devices.rows;
    } catch (error) {
      this.agentsStale ||= stale;
      throw error;
    }
    this.tellIfChanged();
  }

  /** The listeners hear of what another device changed, or of a device going on- or offline. */
  private tellIfChanged(): void {
    const seen = JSON.stringify(this.devices());
    if (seen === this.lastSeen) return;
    this.lastSeen = seen;
    this.listeners.emit();
  }
}

/** An agent of an offline device: as last published, but it takes no job. */
function offline(agent: ClusterAgent): ClusterAgent {
  return { ...agent, ready: false };
}
