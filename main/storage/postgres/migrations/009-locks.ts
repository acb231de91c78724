/** Schema 9: The locks instances take turns by. */
export const sql = `
  -- The locks instances take turns by (locks.ts), rows of our own: any role connected to the
  -- database may take an advisory key, but only one with rights on this table can lock a row.
  CREATE TABLE locks (name TEXT PRIMARY KEY);
  INSERT INTO locks (name) VALUES ('sweep'), ('caps');
  `;
