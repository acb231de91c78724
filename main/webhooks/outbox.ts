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
 * implementations: SQLite in the data dir (sqlite-outbox.ts, one sender) and PostgreSQL
 * shared by several instances (pg-outbox.ts), where each sender claims what it sends.
 */
export interface WebhookOutbox {
  /**
   * `listener` hears that a delivery may be due before any scheduled time: one was added in
   * this process (SQLite), or a redelivery was asked for by any instance or the command
   * line (PostgreSQL). Deliveries of jobs made final on other instances are heard as their
   * job store's events instead.
   */
  onEnqueue(listener: () => void): void;
  /** The origins with a pending delivery, due or not, in byte order. */
  pendingOrigins(): Promise<string[]>;
  /**
   * Up to `limit` deliveries to `origin` due at `now`, oldest due first, except those of
   * `busy` jobs. On a shared database they are claimed for this instance: no other instance
   * gets them until they are recorded, released, or the claim's lease has passed.
   */
  dueFor(origin: string, now: number, busy: string[], limit: number): Promise<DueDelivery[]>;
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
