// TEMPORARY (issue 11): the job-store port of /work/briefs/job-store-port.ts until the
// store-port branch lands it in main/queue/job-store.ts and main/core/jobs.ts. Delete on rebase.
import type { AttemptRow, ConversationRow, Deletion, JobRow, Moved, NewJob, QueuedJob, Viewer, AttemptEnd } from '../job-store.js';
import type { JobStatus } from '../state-machine.js';

export type { AttemptEnd, AttemptRow, ConversationRow, Deletion, JobRow, JobStatus, Moved, NewJob, QueuedJob, Viewer };
export { EVERY_ACCOUNT } from '../job-store.js';

export interface IdempotencyClaim {
  key: string;
  hash: string;
  ttlMs: number;
  onOtherHash: 'conflict' | 'replace';
}

export interface SubmitRequest {
  job: NewJob;
  idempotency?: IdempotencyClaim;
  queuedLimit: number;
}

export type SubmitResult =
  | { kind: 'created'; job: JobRow }
  | { kind: 'found'; job: JobRow }
  | { kind: 'conflict' }
  | { kind: 'queue_full' };

export type StoreEvent = { job: JobRow; from: JobStatus | null };

export interface Claim {
  jobId: string;
  agentId: string;
  provider: string;
}

export interface JobStore {
  submit(request: SubmitRequest): Promise<SubmitResult>;
  dispatch(claims: readonly Claim[], now: number): Promise<JobRow[]>;
  endAttempt(id: string, attempt: number, end: AttemptEnd, now: number): Promise<Moved | null>;
  cancel(id: string, now: number): Promise<Moved | undefined>;
  expireDue(now: number): Promise<Moved[]>;
  requeueDispatched(now: number): Promise<Moved[]>;
  delete(id: string): Promise<Deletion | undefined>;
  purgeFinishedBefore(before: number, limit: number): Promise<number>;
  pruneContent(before: number, now: number, limit: number, account?: string | null): Promise<number>;
  pruneIdempotency(now: number): Promise<void>;
  get(id: string): Promise<JobRow | undefined>;
  attempts(id: string): Promise<AttemptRow[]>;
  conversation(ref: string): Promise<ConversationRow | undefined>;
  recent(limit: number): Promise<JobRow[]>;
  queuedInOrder(): Promise<QueuedJob[]>;
  queuedCount(viewer: Viewer): Promise<number>;
  queuePosition(job: JobRow): Promise<number>;
  oldestQueuedAt(viewer: Viewer): Promise<number | null>;
  nextDeadline(): Promise<number | null>;
  queuedOfDisabledAccounts(): Promise<string[]>;
  attemptStartsSince(since: number): Promise<{ agent_id: string; provider: string; started_at: number }[]>;
  startsByAccount(today: number, hourAgo: number): Promise<Map<string | null, { today: number; hour: number }>>;
  onEvent(listener: (event: StoreEvent) => void): () => void;
  close(): Promise<void>;
}
