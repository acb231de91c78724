/** Schema 11: The pieces of a running job's answer, as its agent tells them, for event streams to follow and resume. */
export const sql = `
  -- The pieces of the answer a running job's agent was sure of, in the order told, each with
  -- the attempt that told it (a retried attempt's pieces are not the first one's). Kept only
  -- while the job runs: the instance that makes its final move drops them, and the answer
  -- itself is then the response; a job deleted takes any left with it.
  CREATE TABLE job_deltas (
    job_id   TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    attempt  INTEGER NOT NULL,
    text     TEXT NOT NULL,
    PRIMARY KEY (job_id, seq)
  ) WITHOUT ROWID;
  `;
