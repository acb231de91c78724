/** Schema 4: Each device's agents as its pool last published them. */
export const sql = `
  -- Each device's agents as its pool last published them, for every instance's API: which
  -- can take a job anywhere. Rewritten whole by their device on each change; an agent counts
  -- only while its device is online (devices.heartbeat_at, left_at).
  CREATE TABLE device_agents (
    id             TEXT PRIMARY KEY,    -- the agent's id (agt_…), unique across devices
    device_id      TEXT NOT NULL,
    provider       TEXT NOT NULL,
    name           TEXT NOT NULL,
    enabled        BOOLEAN NOT NULL,
    position       INTEGER NOT NULL,    -- the user's order on its device
    created_at     BIGINT NOT NULL,
    cap_per_hour   INTEGER,
    state          TEXT NOT NULL,       -- needs_login | idle | busy | resting | paused | error
    ready          BOOLEAN NOT NULL,    -- idle and not pausing between jobs: takes a job now, caps aside
    cooldown_until BIGINT,              -- resting after a usage limit until then
    pause_until    BIGINT               -- pausing between jobs until then
  );
  CREATE INDEX device_agents_device ON device_agents (device_id);
  `;
