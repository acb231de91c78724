/** Schema 12: The files of a job (its attachments): their description on the job, their bytes beside it. */
export const sql = `
  -- Each file's name, media type, size and SHA-256, as a JSON array in the job's order
  -- (never the bytes): every read of the job shows them without a join.
  ALTER TABLE jobs ADD COLUMN attachments JSONB NOT NULL DEFAULT '[]';
  -- The bytes of a job's files, file \`position\` (its place in jobs.attachments) cut in
  -- chunks of at most 1 MiB, in order: an attempt, on whichever instance, reads them one chunk
  -- at a time to a file, so a 50 MiB job never sits whole in memory. Written with the job;
  -- they go with its prompt (retention) and with the job itself (ON DELETE CASCADE). The
  -- reference is checked at the commit: a submission writes the bytes before it takes its
  -- account's queue lock and inserts the job, so other submissions never wait on the upload.
  CREATE TABLE job_files (
    job_id    TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    position  INTEGER NOT NULL,
    chunk     INTEGER NOT NULL,
    data      BYTEA NOT NULL,
    PRIMARY KEY (job_id, position, chunk)
  );
  `;
