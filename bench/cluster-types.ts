/**
 * What the modules of the cluster benchmark (bench/cluster.ts) share: the sizes of its rounds
 * and the shapes of an instance, a set-up, one round and a set-up's running totals.
 */
import type { KeyRing, Server } from './support.js';

export const CONNECTIONS = 48; // splits evenly over 1, 2 and 3 instances
export const ROUND = 900; // below the account's 1 000-queued limit (LIMITS.queuedJobs)
export const TIMED_ROUNDS = 3;
export const KEYS_PER_INSTANCE = 100;

/** An instance with its own API keys. */
export interface Instance {
  server: Server;
  keys: KeyRing;
}

/** A way of accepting submissions, timed round by round. */
export interface SetUp {
  name: string;
  /** The instances it spreads load over (none: the database alone). */
  instances: Instance[];
  /** The PostgreSQL database it runs on, to sample; none on SQLite. */
  database?: string;
  /** One round of ROUND submissions; its `empty` (untimed) leaves the queue as it was. */
  round(): Promise<Round>;
  totals: Totals;
}

export interface Round {
  accepted: number;
  /** From the first response to the last (connection set-up excluded, as submit-and-get does). */
  steadyMs: number;
  latencies: number[];
  statuses: Map<number, number>;
  errors: number;
  empty(): Promise<void>;
}

export interface Totals {
  accepted: number;
  steadyAccepted: number;
  steadyMs: number;
  latencies: number[];
  statuses: Map<number, number>;
  errors: number;
  roundRates: number[];
  /** CPU seconds during the timed rounds. */
  cpu: { instances: number; idle: number; postgres: number; generator: number; machine: number; wallS: number };
  /** Sums of pg_stat_activity samples. */
  activity: { samples: number; running: number; inTransaction: number; lockWait: number };
}
