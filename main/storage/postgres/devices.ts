import type pg from 'pg';
import type { Clock, TimerHandle } from '../../core/clock.js';
import type { Moved } from '../../core/jobs.js';
import type { PgJobStore } from './job-store.js';
import { OneAtATime } from '../../core/one-at-a-time.js';
import { announceTableChange } from './table-changes.js';

/**
 * How a dead device's jobs come back within 15 s. The worst case is a death just after a
 * heartbeat: the device is lost `leaseMs` after that beat and the next sweep, at most
 * `sweepMs` later, re-queues its jobs: 10 + 2 = 12 s, leaving 3 s for a slow database. A live
 * device misses three beats (at 3, 6 and 9 s) before it is lost, so a stalled event loop or
 * a slow commit of up to 7 s costs nothing. The devices' clocks must agree to well within
 * those 7 s (NTP does), since a sweeper compares its own time with another device's beats.
 */
export interface LeaseTiming {
  heartbeatMs: number;
  leaseMs: number;
  sweepMs: number;
}

/**
 * The table-change name under which a device says it arrived or left, so the others show it
 * at once; a death is noticed by its silence, a lease later.
 */
export const DEVICES_TABLE = 'devices';

/** A device silent this long is dropped from the list (7 days: a laptop away for a week comes back as new). */
export const FORGET_AFTER_MS = 7 * 24 * 3_600_000;

export const DEFAULT_LEASE: LeaseTiming = { heartbeatMs: 3_000, leaseMs: 10_000, sweepMs: 2_000 };

/** An instance sharing the database, as /v1/status.devices shows it. */
export interface DeviceStatus {
  id: string;
  name: string;
  /** Where its API answers; null when it runs with --no-api. */
  base_url: string | null;
  /** It has beaten within the lease and has not left. */
  online: boolean;
  started_at: number;
  heartbeat_at: number;
}

/** Every device that ever registered on this database, online ones first, then by name. */
export async function listDevices(pool: pg.Pool, now: number, leaseMs = DEFAULT_LEASE.leaseMs): Promise<DeviceStatus[]> {
  const { rows } = await pool.query<DeviceStatus>(
    `SELECT id, name, base_url, (left_at IS NULL AND heartbeat_at >= $1::bigint) AS online, started_at, heartbeat_at
     FROM devices ORDER BY online DESC, name, id`,
    [now - leaseMs],
  );
  return rows;
}

/**
 * This instance among those sharing the database: it registers, heartbeats so the others
 * know it is alive, sweeps so that the jobs of a device that died come back to the queue
 * (PgJobStore.requeueLostDevices: every live device sweeps, one at a time wins), and says
 * when it leaves. Its id is its store's: the attempts that store dispatches are its own.
 */
export class Device {
  private readonly heartbeat: Every;
  private readonly sweep: Every;
  private startedAt = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly store: PgJobStore,
    private readonly identity: { name: string; baseUrl: string | null },
    private readonly clock: Clock,
    /** A beat or sweep that failed (the database out of reach): the next one tries again. */
    onError: (error: Error) => void,
    private readonly timing: LeaseTiming = DEFAULT_LEASE,
  ) {
    this.heartbeat = new Every(clock, timing.heartbeatMs, () => this.beat(), onError);
    this.sweep = new Every(clock, timing.sweepMs, () => this.sweepOnce(), onError);
  }

  get id(): string {
    return this.store.deviceId;
  }

  /** Registers (again, if this id was seen before: it is back, and online), then beats and sweeps. */
  async start(): Promise<void> {
    this.startedAt = this.clock.now();
    await this.pool.query(
      `INSERT INTO devices (id, name, base_url, heartbeat_at, started_at) VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, base_url = excluded.base_url,
         heartbeat_at = excluded.heartbeat_at, started_at = excluded.started_at, left_at = NULL`,
      [this.id, this.identity.name, this.identity.baseUrl, this.startedAt],
    );
    await announceTableChange(this.pool, DEVICES_TABLE);
    this.heartbeat.start();
    this.sweep.start();
  }

  /**
   * Stops beating and sweeping without a word: to the others this device has died, and its
   * jobs come back within the lease. leave() is the clean stop.
   */
  stop(): void {
    this.heartbeat.stop();
    this.sweep.stop();
  }

  /** Resolves once the beat and sweep under way, if any, are done. */
  async settled(): Promise<void> {
    await Promise.all([this.heartbeat.settled(), this.sweep.settled()]);
  }

  /**
   * The clean stop, once this device's agents are stopped: its jobs go back to the queue at
   * once (requeueDispatched) and it is marked as left, offline for the others right away.
   */
  async leave(): Promise<Moved[]> {
    this.stop();
    await this.settled();
    const moved = await this.store.requeueDispatched(this.clock.now());
    await this.pool.query(`UPDATE devices SET left_at = $2 WHERE id = $1`, [this.id, this.clock.now()]);
    await announceTableChange(this.pool, DEVICES_TABLE);
    return moved;
  }

  /** Every device on this database, as this one sees them now. */
  list(): Promise<DeviceStatus[]> {
    return listDevices(this.pool, this.clock.now(), this.timing.leaseMs);
  }

  /**
   * Re-queues the jobs of devices that died, then forgets devices silent for FORGET_AFTER_MS
   * (a data dir thrown away, a machine retired), so the list stays the devices in use. Their
   * jobs came back long ago; one that returns registers again.
   */
  private async sweepOnce(): Promise<void> {
    const now = this.clock.now();
    await this.store.requeueLostDevices(now, this.timing.leaseMs);
    await this.pool.query(
      `WITH gone AS (DELETE FROM devices WHERE COALESCE(left_at, heartbeat_at) < $1::bigint RETURNING id)
       DELETE FROM device_agents WHERE device_id IN (SELECT id FROM gone)`,
      [now - FORGET_AFTER_MS],
    );
  }

  /** One beat; a row removed meanwhile (by hand) is written again. */
  private async beat(): Promise<void> {
    await this.pool.query(
      `INSERT INTO devices (id, name, base_url, heartbeat_at, started_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
      [this.id, this.identity.name, this.identity.baseUrl, this.clock.now(), this.startedAt],
    );
  }
}

/**
 * Runs `task` every `ms` on the injected clock, at a fixed rate: the next run is planned
 * before this one starts, so a slow run does not push the beats apart; a run that comes due
 * while the last one is still going is skipped, so runs never pile up on a slow database.
 */
export class Every {
  private timer: TimerHandle | undefined;
  private readonly runs: OneAtATime;
  private stopped = true;

  constructor(
    private readonly clock: Clock,
    private readonly ms: number,
    task: () => Promise<unknown>,
    onError: (error: Error) => void,
  ) {
    this.runs = new OneAtATime(async () => void (await task()), onError);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.plan();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  settled(): Promise<void> {
    return this.runs.idle();
  }

  private plan(): void {
    this.timer = this.clock.setTimer(() => {
      if (this.stopped) return;
      this.plan();
      // Skipped, not asked again: a run after a slow one would keep a slow database busy.
      if (!this.runs.busy) void this.runs.run();
    }, this.ms);
  }
}
