import type { Clock, TimerHandle } from '../core/clock.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import type { JobStore } from '../queue/job-store.js';
import type { Reclaim } from '../storage/storage.js';
import { Listeners } from '../core/listeners.js';
import { OneAtATime } from '../core/one-at-a-time.js';

export const DAY_MS = 86_400_000;
/** Webhook delivery logs that are over are kept this long, whatever the retention setting. */
export const WEBHOOK_LOG_DAYS = 30;

export interface RetentionPacing {
  /** Time between sweeps; a sweep also runs at start and when `wake` is called. */
  intervalMs: number;
  /** Rows per transaction: each batch holds the write lock for a few milliseconds only. */
  batch: number;
  /** Pages handed back to the file system per step of the incremental vacuum. */
  vacuumPages: number;
}

/**
 * Sweeping 10 000 jobs with 2 kB prompts (bench/retention.ts): a batch of 200 took 20-30 ms
 * and a vacuum step of 256 pages 40-50 ms, and the sweep held the event loop up to 330 ms
 * (p99 220 ms) on a busy machine; a request passes through the loop several times (body,
 * commit, dispatch, answer) and waits behind a step at each. A quarter of each: 90-140 ms
 * at most (p99 50-60 ms) in the same conditions, for a sweep a little longer.
 */
export const DEFAULT_PACING: RetentionPacing = { intervalMs: 10 * 60_000, batch: 50, vacuumPages: 64 };

export interface SweepResult {
  /** Jobs whose prompt and response were removed. */
  pruned: number;
  /** Webhook deliveries (with their attempt logs) cleared. */
  webhookLogsCleared: number;
  /** Database pages returned to the file system. */
  pagesReclaimed: number;
}

/** How long finished jobs of one account keep their text (null: Profile F's one account); days null keeps it. */
export interface RetentionPeriod {
  account: string | null;
  days: number | null;
}

/**
 * Files kept about jobs outside the store (the diagnostic bundles of failed attempts): those
 * of a job that is gone or lost its text go at each sweep.
 */
export interface JobFiles {
  removeWhere(gone: (jobId: string) => Promise<boolean>): Promise<number>;
}

/** Lets the API's requests (and the scheduler) run between two batches. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));


/**
 * Keeps what is stored to what the person chose: removes the prompt and response of jobs
 * that finished longer ago than the retention setting, clears webhook logs older than 30
 * days, deletes the diagnostic bundles of jobs gone or pruned, and gives the freed space back (`reclaim`, on SQLite). It sweeps at start, every
 * `intervalMs` on the injected clock, and when woken (the setting changed); each step is
 * a small transaction followed by a turn of the event loop, so requests never wait long.
 */
export class Retention {
  private timer: TimerHandle | null = null;
  private readonly sweeps: OneAtATime;
  private stopped = false;
  private readonly listeners = new Listeners<[SweepResult]>();

  constructor(
    private readonly store: JobStore,
    private readonly outbox: WebhookOutbox,
    /** Each account's period: Profile F has the install's setting alone, Profile H each account's too. */
    private readonly periods: () => RetentionPeriod[],
    private readonly clock: Clock,
    onError: (error: Error) => void,
    private readonly reclaim: Reclaim | null,
    private readonly pacing: RetentionPacing = DEFAULT_PACING,
    private readonly files: JobFiles | null = null,
  ) {
    this.sweeps = new OneAtATime(() => this.sweepThenWait(), onError);
  }

  start(): void {
    this.wake();
  }

  /** Sweeps now (or right after the sweep under way), then again after the interval. */
  wake(): void {
    if (!this.stopped) void this.sweeps.run();
  }

  /** One sweep, told to the listeners; the next one comes after the interval, or sooner when woken. */
  private async sweepThenWait(): Promise<void> {
    if (this.stopped) return;
    this.timer?.cancel();
    this.timer = null;
    try {
      this.listeners.emit(await this.sweep());
    } finally {
      if (!this.stopped) this.timer = this.clock.setTimer(() => this.wake(), this.pacing.intervalMs);
    }
  }

  /** `listener` hears how each sweep ended. Returns the function that stops it. */
  onSweep(listener: (result: SweepResult) => void): () => void {
    return this.listeners.on(listener);
  }

  /** Resolves once no sweep is under way or asked for. */
  idle(): Promise<void> {
    return this.sweeps.idle();
  }

  /** Stops sweeping; resolves once the sweep under way has stopped at its next step. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.sweeps.idle();
  }

  private async sweep(): Promise<SweepResult> {
    const result: SweepResult = { pruned: 0, webhookLogsCleared: 0, pagesReclaimed: 0 };
    const now = this.clock.now();
    for (const { account, days } of this.periods()) {
      if (days === null) continue;
      result.pruned += await this.inBatches(() => this.store.pruneContent(now - days * DAY_MS, now, this.pacing.batch, account));
    }
    result.webhookLogsCleared = await this.inBatches(() => this.outbox.clearOld(now - WEBHOOK_LOG_DAYS * DAY_MS, this.pacing.batch));
    await this.files?.removeWhere(async (id) => {
      const job = await this.store.view(id);
      return !job || job.content_pruned_at !== null;
    });
    if (this.reclaim) result.pagesReclaimed = await this.reclaim(this.pacing.vacuumPages, nextTurn, () => !this.stopped);
    return result;
  }

  /** Runs `step` (one small transaction, returning rows done) until it does less than a batch. */
  private async inBatches(step: () => Promise<number>): Promise<number> {
    let total = 0;
    while (!this.stopped) {
      const done = await step();
      total += done;
      if (done < this.pacing.batch) break;
      await nextTurn();
    }
    return total;
  }
}
