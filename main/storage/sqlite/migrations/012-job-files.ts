/** Schema 12: The files of a job (its attachments): their description on the job, their bytes beside it. */
export const sql = `
  -- Each file's name, media type, size and SHA-256, as a JSON array in the job's order
  -- (never the bytes): every read of the job shows them without a join.
  ALTER TABLE jobs ADD COLUMN attachments TEXT NOT NULL DEFAULT '[]';
  -- The bytes of a job's files, file \`position\` (its place in jobs.attachments) cut in
  -- chunks of at most 1 MiB, in order: an attempt reads them one chunk at a time to a
  -- file, so a 50 MiB job never sits whole in memory. A submission writes them a chunk a
  -- turn before its job's row (so no write holds the service for a whole file), hence no
  -- reference to jobs: the store removes them with the job's prompt (retention) and with the
  -- job, and those of a submission that did not end in a job (refused, or a crash) itself.
  CREATE TABLE job_files (
    job_id    TEXT NOT NULL,
    position  INTEGER NOT NULL,
    chunk     INTEGER NOT NULL,
    data      BLOB NOT NULL,
    PRIMARY KEY (job_id, position, chunk)
  );
  `;
