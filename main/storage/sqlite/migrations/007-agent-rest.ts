/** Schema 7: A rest after a usage limit that outlives a restart. */
export const sql = `
  -- A rest after a usage limit outlives a restart: until when (epoch ms) the agent takes no
  -- job, as the provider said; null when it does not rest.
  ALTER TABLE agents ADD COLUMN rest_until INTEGER;
  `;
