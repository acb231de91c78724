import type { Clock } from '../core/clock.js';

/**
 * Per-key request limits (api.md Limits: 600 writes and 1 200 reads a minute). A generic
 * cell-rate algorithm: a key may burst its whole minute's budget, then gets one request per
 * (60 s / limit); one number per key and no timers.
 */
export class RateLimiter {
  /** Per bucket: the time at which it would be completely refilled. */
  private readonly theoretical = new Map<string, number>();
  private readonly interval: number;
  private readonly burstMs: number;

  constructor(
    private readonly clock: Clock,
    perMinute: number,
  ) {
    this.interval = 60_000 / perMinute;
    this.burstMs = 60_000 - this.interval;
  }

  /** Takes one request from `bucket`'s budget; returns 0 if allowed, else seconds to wait. */
  take(bucket: string): number {
    const now = this.clock.now();
    const tat = Math.max(this.theoretical.get(bucket) ?? now, now);
    const allowAt = tat - this.burstMs;
    if (allowAt > now) return Math.max(1, Math.ceil((allowAt - now) / 1000));
    this.theoretical.set(bucket, tat + this.interval);
    return 0;
  }
}
