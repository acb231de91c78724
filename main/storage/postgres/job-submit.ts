import type pg from 'pg';
import type { JobRow, StoreEvent, SubmitRequest, SubmitResult } from '../../core/jobs.js';
import { keyVerdict, type KeyEntry } from '../../queue/idempotency.js';
import { one } from './job-moves.js';
import { queueLock } from './locks.js';
import { attachmentMeta, storedChunks, type NewAttachment } from '../../core/attachments.js';

/** Ends a transaction with ROLLBACK and resolves with `value` (a refusal that writes nothing). */
export class Rollback<T> {
  constructor(readonly value: T) {}
}

/**
 * A submission inside its transaction (PgJobStore.submit): the idempotency entry, the
 * account's queue limit and the insert; the job created is added to `events`.
 */
export async function submitJob(
  c: pg.PoolClient,
  { job, attachments = [], idempotency, queuedLimit, refuseNew }: SubmitRequest,
  events: StoreEvent[],
): Promise<SubmitResult> {
  const now = job.created_at;
  if (idempotency) {
    // Inserts our entry, or locks the one there: a concurrent repeat of the key, on any
    // instance, waits here until this transaction ends, then sees what it wrote.
    const entry = await one<KeyEntry>(
      c,
      `INSERT INTO idempotency AS i (key, request_hash, job_id, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (key) DO UPDATE SET key = i.key
       RETURNING request_hash, job_id, created_at`,
      [idempotency.key, idempotency.hash, job.id, now],
    );
    const verdict = keyVerdict(entry!.job_id === job.id ? undefined : entry, idempotency, now);
    if (verdict.kind === 'conflict') throw new Rollback<SubmitResult>(verdict);
    const original = verdict.kind === 'repeat' ? await one<JobRow>(c, `SELECT * FROM jobs WHERE id = $1`, [verdict.jobId]) : undefined;
    if (original) {
      if (idempotency.onOtherHash === 'replace') await c.query(`UPDATE idempotency SET created_at = $2 WHERE key = $1`, [idempotency.key, now]);
      return { kind: 'found', job: original };
    }
    // Expired, replaced, or its job deleted since: the key now stands for this job.
    if (entry!.job_id !== job.id) {
      await c.query(`UPDATE idempotency SET request_hash = $2, job_id = $3, created_at = $4 WHERE key = $1`, [idempotency.key, idempotency.hash, job.id, now]);
    }
  }
  const account = job.account_id ?? null;
  if (!refuseNew) await storeFiles(c, job.id, attachments);
  await queueLock(c, account);
  // Counting stops at the limit: a full queue costs no more to refuse than to fill. The
  // count runs in a statement after the lock's: in READ COMMITTED each statement reads as
  // of its start, so only one begun after the wait sees the last holder's job.
  const room = `(SELECT COUNT(*) FROM (SELECT 1 FROM jobs WHERE status = 'queued' AND COALESCE(account_id, '') = $1 LIMIT $2) AS q) < $2`;
  if (refuseNew) {
    const free = await one<{ room: boolean }>(c, `SELECT ${room} AS room`, [account ?? '', queuedLimit]);
    // The rollback also takes back the key recorded above: a refused request leaves nothing.
    throw new Rollback<SubmitResult>({ kind: free!.room ? 'refused' : 'queue_full' });
  }
  // The count and the insert in one statement: the account's lock is held one round trip less.
  const row = await one<JobRow>(
    c,
    `INSERT INTO jobs (id, status, prompt, req_provider, req_agent_id, conversation_in, priority, timeout_ms,
       deadline_at, max_attempts, callback_url, metadata, created_at, api_key_id, account_id, variant, attachments)
     SELECT $3, 'queued', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18 WHERE ${room}
     RETURNING *`,
    [
      account ?? '',
      queuedLimit,
      job.id,
      job.prompt,
      job.req_provider,
      job.req_agent_id,
      job.conversation_in,
      job.priority,
      job.timeout_ms,
      job.deadline_at,
      job.max_attempts,
      job.callback_url,
      job.metadata,
      job.created_at,
      job.api_key_id,
      account,
      job.variant ?? null,
      // A JSON text: an array parameter would go as a PostgreSQL array.
      JSON.stringify(attachments.map(attachmentMeta)),
    ],
  );
  if (!row) throw new Rollback<SubmitResult>({ kind: 'queue_full' });
  events.push({ job: row, from: null });
  return { kind: 'created', job: row };
}

/**
 * The bytes of a job's files, chunk by chunk, each a binary parameter (a Buffer goes to the
 * server as it is, not as hex text); the job row follows in the same transaction.
 */
async function storeFiles(c: pg.PoolClient, jobId: string, files: readonly NewAttachment[]): Promise<void> {
  for (const [position, file] of files.entries()) {
    for (const [chunk, data] of storedChunks(file.data).entries()) {
      await c.query(`INSERT INTO job_files (job_id, position, chunk, data) VALUES ($1, $2, $3, $4)`, [jobId, position, chunk, data]);
    }
  }
}
