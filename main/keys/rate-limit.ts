import type { Clock } from '../core/clock.js';

/**
 * Per-key request limits (api.md Limits: 600 writes and 1 200 reads a minute), one budget
 * per limiter: in memory on one machine (MemoryRateLimiter, below), or counted in the shared
 * PostgreSQL (postgres/rate-limit.ts), so several instances give a key one budget between them.
 */
export interface RateLimiter {
  /** Takes one request from `bucket`'s budget; resolves with 0 if allowed, else the seconds to wait. */
  take(bucket: string): Promise<number>;
}

/** The read and the write budget the API spends from. */
export interface RequestLimits {
  read: RateLimiter;
  write: RateLimiter;
}

/**
 * A generic cell-rate algorithm (GCRA): a key may burst its whole minute's budget, then gets
 * one request per (60 s / limit); one number per key (its theoretical arrival time, the
 * moment its budget would be full again) and no timers.
 */
export class Gcra {
  /** The time one request is worth, in ms. */
  readonly interval: number;
  /** How far ahead of now the theoretical arrival time may run: the burst less one request. */
  readonly burstMs: number;

  constructor(perMinute: number) {
    this.interval = 60_000 / perMinute;
    this.burstMs = 60_000 - this.interval;
  }

  /** Given a bucket's theoretical arrival time (undefined: a new bucket), the new one if allowed, else the ms to wait. */
  take(tat: number | undefined, now: number): { allowed: true; tat: number } | { allowed: false; waitMs: number } {
    const from = Math.max(tat ?? now, now);
    const allowAt = from - this.burstMs;
    return allowAt > now ? { allowed: false, waitMs: allowAt - now } : { allowed: true, tat: from + this.interval };
  }
}

/** A Retry-After in whole seconds, at least 1. */
export function waitSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** The budgets of one instance, in memory: the desktop's, where one process answers every request. */
export class MemoryRateLimiter implements RateLimiter {
  /** Per bucket: the time at which it would be completely refilled. */
  private readonly theoretical = new Map<string, number>();
  private readonly gcra: Gcra;

  constructor(
    private readonly clock: Clock,
    perMinute: number,
  ) {
    this.gcra = new Gcra(perMinute);
  }

  async take(bucket: string): Promise<number> {
    const taken = this.gcra.take(this.theoretical.get(bucket), this.clock.now());
    if (!taken.allowed) return waitSeconds(taken.waitMs);
    this.theoretical.set(bucket, taken.tat);
    return 0;
  }
}
