export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  job_id: string;
  origin: string;
  state: DeliveryState;
  round: number;
  round_attempts: number;
  next_at: number | null;
  created_at: number;
}

export interface DeliveryAttemptRow {
  job_id: string;
  attempt: number;
  round: number;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/** A delivery whose next attempt is due. */
export type DueDelivery = Pick<DeliveryRow, 'job_id' | 'origin' | 'round'>;

/**
 * The deliveries of one account to one origin: the sender lets accounts take turns, then
 * each account's origins. `account` is '' for jobs of no account (Profile F, the operator's).
 */
export interface Lane {
  account: string;
  origin: string;
}

/** Lanes in byte order of account, then origin: the sender takes turns by comparing them. */
export function byLane(a: Lane, b: Lane): number {
  if (a.account !== b.account) return a.account < b.account ? -1 : 1;
  return a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0;
}

/** How one attempt ended: the receiver's status, or why none came. */
export interface AttemptResult {
  jobId: string;
  round: number;
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/** Only a 2xx is a delivery; a 3xx too is a failure, as redirects are never followed. */
export function isDelivered(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode <= 299;
}

/**
 * The durable webhook outbox: one row per final job with a callback_url, its schedule, and
 * the log of its attempts. The job store adds the row in the transaction that makes the job
 * final; the sender reads what is due and records how each attempt ended. Two
 * implementations: SQLite in the data dir (storage/sqlite, SqliteWebhookOutbox, one sender) and
 * PostgreSQL shared by several instances (storage/postgres/outbox.ts), where each sender claims
 * what it sends.
 */
export interface WebhookOutbox {
  /**
   * `listener` hears that a delivery may be due before any scheduled time: one was added in
   * this process (SQLite), or a redelivery was asked for by any instance or the command
   * line (PostgreSQL). Deliveries of jobs made final on other instances are heard as their
   * job store's events instead.
   */
  onEnqueue(listener: () => void): void;
  /** The lanes with a pending delivery, due or not, in byLane order. */
  pendingLanes(): Promise<Lane[]>;
  /**
   * Up to `limit` deliveries of `lane` due at `now`, oldest due first, except those of
   * `busy` jobs. On a shared database they are claimed for this instance: no other instance
   * gets them until they are recorded, released, or the claim's lease has passed.
   */
  dueFor(lane: Lane, now: number, busy: string[], limit: number): Promise<DueDelivery[]>;
  /** When the outbox should be looked at again after `now` (a retry due, a claim lapsing); null when never. */
  nextDueAfter(now: number): Promise<number | null>;
  /** Logs an attempt and moves its round on: delivered, the next attempt, or failed for good. */
  record(result: AttemptResult): Promise<void>;
  /** Hands back deliveries taken by `dueFor` and never attempted (shutdown), so another sender takes them at once. */
  release(jobIds: string[]): Promise<void>;
  get(jobId: string): Promise<DeliveryRow | undefined>;
  attempts(jobId: string): Promise<DeliveryAttemptRow[]>;
  /**
   * Deletes up to `limit` deliveries that are over (delivered, or failed for good) and were
   * created before `before`, with their attempt logs; returns how many. A pending one stays
   * whatever its age: it still has attempts to make.
   */
  clearOld(before: number, limit: number): Promise<number>;
  /** Starts a new round of attempts at `now`, whatever the state of the last one. */
  redeliver(jobId: string, now: number): Promise<DeliveryRow | undefined>;
}

