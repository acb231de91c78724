/** Schema 6: Each agent's pause between jobs and its proxy. */
export const sql = `
  -- Guardrails against bans, per agent: the pause between its jobs (null: the global
  -- setting) and its browser's proxy (null: a direct connection).
  ALTER TABLE agents ADD COLUMN pause_ms INTEGER;
  ALTER TABLE agents ADD COLUMN proxy TEXT;
  `;
