/**
 * CPU and database activity during the cluster benchmark's rounds (bench/cluster.ts): CPU
 * ticks of the instances, of the whole PostgreSQL server (its postmaster and every backend,
 * from /proc), of this process and of the machine; pg_stat_activity sampled while a round
 * runs; and a count of the statements sent on a pool's connections.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';
import type { Instance, Totals } from './cluster-types.js';
import { cpuTicks } from './support.js';

const SAMPLE_MS = 25;

export interface CpuSnapshot {
  instances: number;
  /** The instances of the other set-ups, idle meanwhile (heartbeats, the SQLite one's webhook retries). */
  idle: number;
  postgres: number;
  /** This process, in microseconds. */
  generatorUs: number;
  machine: number;
}

/** The postmaster's pid: the parent of this connection's backend. */
export async function postmaster(pool: pg.Pool): Promise<number> {
  const backend = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  return parentOf(backend)!;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined; // gone meanwhile
  }
}

/**
 * CPU ticks of the whole PostgreSQL server: the postmaster with the backends it reaped
 * (cutime, cstime) and every live child.
 */
export function postgresTicks(postmasterPid: number): number {
  const stat = readFileSync(`/proc/${postmasterPid}/stat`, 'utf8');
  const own = stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(11, 15).map(Number);
  let ticks = own.reduce((a, b) => a + b, 0);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || parentOf(Number(entry)) !== postmasterPid) continue;
    try {
      ticks += cpuTicks(Number(entry));
    } catch {
      // exited between the listing and the read: its time is in the postmaster's cutime now
    }
  }
  return ticks;
}

function machineTicks(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return f[0]! + f[1]! + f[2]! + (f[5] ?? 0) + (f[6] ?? 0); // user nice system irq softirq
}

export function cpuNow(instances: Instance[], idle: Instance[], postgresPid: number): CpuSnapshot {
  const usage = process.cpuUsage();
  const ticks = (of: Instance[]) => of.reduce((n, i) => n + cpuTicks(i.server.pid), 0);
  return {
    instances: ticks(instances),
    idle: ticks(idle),
    postgres: postgresTicks(postgresPid),
    generatorUs: usage.user + usage.system,
    machine: machineTicks(),
  };
}

/**
 * Samples pg_stat_activity of `database` every SAMPLE_MS until stopped, adding to `into`:
 * backends running a statement (on the CPU or writing), waiting inside a transaction for
 * their client's next statement, and waiting for an advisory lock (the account's queue lock).
 */
export function sampleActivity(pool: pg.Pool, database: string, into: Totals['activity']): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await pool.query<{ running: number; in_transaction: number; lock_wait: number }>(
        `SELECT count(*) FILTER (WHERE state = 'active' AND wait_event IS DISTINCT FROM 'advisory') AS running,
                count(*) FILTER (WHERE state = 'idle in transaction') AS in_transaction,
                count(*) FILTER (WHERE state = 'active' AND wait_event = 'advisory') AS lock_wait
         FROM pg_stat_activity WHERE datname = $1`,
        [database],
      );
      into.samples++;
      into.running += rows[0]!.running;
      into.inTransaction += rows[0]!.in_transaction;
      into.lockWait += rows[0]!.lock_wait;
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** Counts the statements sent on `pool`'s connections (BEGIN and COMMIT included). */
export function countStatements(pool: pg.Pool): { count: number } {
  const counter = { count: 0 };
  const counted = new WeakSet<pg.PoolClient>();
  pool.on('connect', (client) => {
    if (counted.has(client)) return;
    counted.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      counter.count++;
      return query(...args);
    };
  });
  return counter;
}
