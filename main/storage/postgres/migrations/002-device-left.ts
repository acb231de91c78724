/** Schema 2: A device that stopped cleanly says so. */
export const sql = `
  -- A device that stopped cleanly says so (its jobs are already back in the queue): it is
  -- offline at once, not a lease later. Registering again clears it.
  ALTER TABLE devices ADD COLUMN left_at BIGINT;
  `;
