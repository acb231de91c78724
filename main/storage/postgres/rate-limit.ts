import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import { Gcra, waitSeconds, type RateLimiter } from '../../keys/rate-limit.js';

/**
 * One budget (read or write) counted in the shared PostgreSQL, so three instances behind a
 * load balancer give a key one budget, not three. The same GCRA as in memory, in one
 * statement per request: the insert or update takes the bucket's row lock, so concurrent
 * requests for one key, on any instance, are decided one after the other on the row as the
 * previous one left it. A refused request leaves the theoretical arrival time as it was and
 * records only its wait, which the statement returns.
 */
export class PgRateLimiter implements RateLimiter {
  private readonly gcra: Gcra;

  /** `pool` is shared with the other stores and closed by its owner; `budget` names this limiter's rows. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    private readonly budget: 'read' | 'write',
    perMinute: number,
  ) {
    this.gcra = new Gcra(perMinute);
  }

  async take(bucket: string): Promise<number> {
    const now = this.clock.now();
    // $3 now, $4 interval, $5 burst: Gcra.take, in SQL.
    const { rows } = await this.pool.query<{ wait_ms: number }>(
      `INSERT INTO request_budgets AS b (budget, bucket, tat, wait_ms) VALUES ($1, $2, $3::float8 + $4::float8, 0)
       ON CONFLICT (budget, bucket) DO UPDATE SET
         tat = CASE WHEN GREATEST(b.tat, $3) - $5 > $3 THEN b.tat ELSE GREATEST(b.tat, $3) + $4 END,
         wait_ms = GREATEST(GREATEST(b.tat, $3) - $5 - $3, 0)
       RETURNING wait_ms`,
      [this.budget, bucket, now, this.gcra.interval, this.gcra.burstMs],
    );
    const waitMs = rows[0]!.wait_ms;
    return waitMs > 0 ? waitSeconds(waitMs) : 0;
  }
}
