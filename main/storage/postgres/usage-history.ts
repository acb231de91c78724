import type pg from 'pg';
import { HOUR_MS } from '../../queue/hourly-usage.js';
import { reportFrom, type UsageHistory, type UsageHistoryReport, type UsageQuery, type UsageRow } from '../../queue/usage-history.js';

/**
 * Usage history from the jobs every instance shares: the same figures as the data dir's
 * (the same rows, counted by the same `reportFrom`), read a slice at a time over the
 * `jobs_finished` index. Reads only: it keeps nothing, and the pool is its owner's.
 */
export class PgUsageHistory implements UsageHistory {
  constructor(private readonly pool: pg.Pool) {}

  report(q: UsageQuery, bucketMs = HOUR_MS, offsetMs = 0): Promise<UsageHistoryReport> {
    return reportFrom(
      async ({ since, until, keyId, agentId }) => {
        // Arrays, in the column order of UsageRow; the pool reads BIGINTs as numbers.
        const { rows } = await this.pool.query<UsageRow>({
          text: `SELECT finished_at, COALESCE(provider, req_provider), agent_id, api_key_id, status, error_code,
                   created_at, queue_ms, run_ms, attempts
                 FROM jobs WHERE finished_at >= $1 AND finished_at < $2
                   AND ($3::text IS NULL OR api_key_id = $3) AND ($4::text IS NULL OR agent_id = $4)`,
          values: [since, until, keyId ?? null, agentId ?? null],
          rowMode: 'array',
        });
        return rows;
      },
      q,
      bucketMs,
      offsetMs,
    );
  }
}
