/** Schema 13: A job's files are written before their job's row, so they no longer reference it. */
export const sql = `
  -- A submission writes its files a chunk a turn before its job's row (so no write holds the
  -- service for a whole file), which a reference to jobs would refuse: the table is made
  -- again without it. The store removes the chunks with the job's prompt (retention) and
  -- with the job, and those of a submission that ended in no job (refused, or a crash) itself.
  CREATE TABLE job_files_staged (
    job_id    TEXT NOT NULL,
    position  INTEGER NOT NULL,
    chunk     INTEGER NOT NULL,
    data      BLOB NOT NULL,
    PRIMARY KEY (job_id, position, chunk)
  );
  INSERT INTO job_files_staged (job_id, position, chunk, data) SELECT job_id, position, chunk, data FROM job_files;
  DROP TABLE job_files;
  ALTER TABLE job_files_staged RENAME TO job_files;
  `;
