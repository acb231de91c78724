/** Schema 12: The files of a job (its attachments): their description on the job, their bytes beside it. */
export const sql = `
  -- Each file's name, media type, size and SHA-256, as a JSON array in the job's order
  -- (never the bytes): every read of the job shows them without a join.
  ALTER TABLE jobs ADD COLUMN attachments TEXT NOT NULL DEFAULT '[]';
  -- The bytes of a job's files, file \`position\` (its place in jobs.attachments) cut in
  -- chunks of at most 1 MiB, in order: an attempt reads them one chunk at a time to a
  -- file, so a 50 MiB job never sits whole in memory. Written with the job; they go with its
  -- prompt (retention) and with the job itself (ON DELETE CASCADE).
  CREATE TABLE job_files (
    job_id    TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    chunk     INTEGER NOT NULL,
    data      BLOB NOT NULL,
    PRIMARY KEY (job_id, position, chunk)
  );
  `;
