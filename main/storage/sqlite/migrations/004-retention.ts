/** Schema 4: Retention (content pruned by age), the key of each job, and the indexes of usage history. */
export const sql = `
  -- Retention: a finished job past the account's retention period loses its prompt (set to
  -- '') and response (null); the rest of the row stays, for usage history and continuation.
  ALTER TABLE jobs ADD COLUMN content_pruned_at INTEGER;
  -- The API key that submitted the job ('admin' for the dashboard's token); null for jobs
  -- accepted before this column existed.
  ALTER TABLE jobs ADD COLUMN api_key_id TEXT;
  -- What retention still has to prune, oldest first.
  CREATE INDEX jobs_unpruned ON jobs (finished_at) WHERE finished_at IS NOT NULL AND content_pruned_at IS NULL;
  -- Usage history reads finished jobs by time and needs nothing else of the row: covering,
  -- so its scans never touch the (large) prompt and response pages.
  CREATE INDEX jobs_finished ON jobs (finished_at, provider, req_provider, agent_id, api_key_id, status, error_code, created_at, queue_ms, run_ms, attempts)
    WHERE finished_at IS NOT NULL;
  -- Webhook deliveries that are over, by age, for clearing old ones.
  CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at) WHERE state <> 'pending';
  `;
