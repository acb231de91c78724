/** The contract's limits (api.md "Limits"), and the few of our own it leaves open. */
export const LIMITS = {
  promptChars: 100_000,
  bodyBytes: 1_048_576,
  queuedJobs: 1_000,
  metadataBytes: 4_096,
  chatMessages: 256,
  idempotencyKeyChars: 255,
  conversationRefChars: 2_048,
  callbackUrlChars: 2_048,
  holdMs: 600_000,
  /** A job's `timeout_ms` (per attempt) and `deadline_ms` (the whole job): the contract's range and default. */
  timeoutMs: { min: 5_000, max: 600_000, default: 180_000 },
  deadlineMs: { min: 10_000, max: 3_600_000, default: 900_000 },
  /**
   * The longest attempt limit a pack may give a long-thinking variant (decisions.md, "Models
   * and modes": ChatGPT Pro, Perplexity Research); a job under such a variant takes
   * `timeout_ms` up to its limit and defaults to it.
   */
  longTimeoutMs: 3_600_000,
  writesPerMinute: 600,
  readsPerMinute: 1_200,
  maxAttempts: 3,
  /**
   * How long a statement on the shared database waits for a lock another session holds (a
   * row, such as an account's queue lock: storage/postgres/locks.ts) before the request fails.
   */
  databaseLockMs: 5_000,
} as const;
