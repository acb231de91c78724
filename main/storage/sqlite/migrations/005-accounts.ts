/** Schema 5: (H) The accounts served, and whose each key, job and conversation is. */
export const sql = `
  -- Profile H: the accounts the operator serves (acct_…). Keys, jobs and conversations
  -- belong to one; in Profile F the install is the one account and account_id stays null.
  CREATE TABLE accounts (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL,
    retention_days INTEGER,             -- finished jobs lose their text after this; null keeps it
    disabled_at    INTEGER,             -- its keys get 401 and its queued jobs are cancelled
    created_at     INTEGER NOT NULL
  ) WITHOUT ROWID;
  ALTER TABLE api_keys ADD COLUMN account_id TEXT;
  ALTER TABLE jobs ADD COLUMN account_id TEXT;
  ALTER TABLE conversations ADD COLUMN account_id TEXT;
  `;
