import type { Db } from './db.js';
import { HOUR_MS } from '../../queue/hourly-usage.js';
import { reportFrom, type UsageHistory, type UsageHistoryReport, type UsageQuery, type UsageRow } from '../../queue/usage-history.js';

/** Usage history from the data dir's jobs: range scans of the covering index `jobs_finished`. */
export class SqliteUsageHistory implements UsageHistory {
  private readonly s;

  constructor(db: Db) {
    // The rows come back as one JSON array: for 100 000 jobs, SQLite's json_group_array and
    // one JSON.parse take a fifth of the time of handing over 100 000 rows one by one.
    const rows = `json_group_array(json_array(finished_at, COALESCE(provider, req_provider), agent_id, api_key_id, status, error_code,
      created_at, queue_ms, run_ms, attempts))`;
    const range = `FROM jobs INDEXED BY jobs_finished WHERE finished_at >= @since AND finished_at < @until`;
    this.s = {
      all: db.prepare(`SELECT ${rows} ${range}`).pluck(),
      byKey: db.prepare(`SELECT ${rows} ${range} AND api_key_id = @keyId`).pluck(),
      byAgent: db.prepare(`SELECT ${rows} ${range} AND agent_id = @agentId`).pluck(),
      byBoth: db.prepare(`SELECT ${rows} ${range} AND api_key_id = @keyId AND agent_id = @agentId`).pluck(),
    };
  }

  report(q: UsageQuery, bucketMs = HOUR_MS, offsetMs = 0): Promise<UsageHistoryReport> {
    const statement =
      q.keyId !== undefined && q.agentId !== undefined ? this.s.byBoth : q.keyId !== undefined ? this.s.byKey : q.agentId !== undefined ? this.s.byAgent : this.s.all;
    return reportFrom(async (slice) => JSON.parse(statement.get(slice) as string) as UsageRow[], q, bucketMs, offsetMs);
  }
}
