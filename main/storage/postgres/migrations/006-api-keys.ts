/** Schema 6: API keys. */
export const sql = `
  -- API keys, as in SQLite (main/keys/key-store.ts): every instance keeps them in memory by
  -- hash and reads them again on the table's change notice. last_used_at is written at
  -- most once a minute per key and announces nothing (it is not worth a re-read anywhere).
  CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    hash         TEXT NOT NULL UNIQUE,  -- sha256 of the secret; the secret itself is never stored
    hint         TEXT NOT NULL,         -- first characters, to recognise a key in a list
    scopes       TEXT NOT NULL,         -- space-separated
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT,
    revoked_at   BIGINT,
    last_used_at BIGINT,
    account_id   TEXT                   -- (H) accounts.id; null in Profile F
  );
  `;
