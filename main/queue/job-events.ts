import type { JobRow, StoreEvent } from '../core/jobs.js';
import { Listeners } from '../core/listeners.js';

type JobListener = (job: JobRow) => void;

/**
 * The job store's events, told by the store itself after each commit (its own moves) and,
 * on a shared database, for each move another instance announced once its row was read
 * again: every listener hears what a row proves, never a relay's copy. Long polls, event
 * streams and the dashboard listen per job or for all jobs; the scheduler, the hourly counts,
 * the webhook sender and the logs hear every StoreEvent. A listener that throws neither
 * keeps the others from hearing nor turns a commit into a failed call (emitApart).
 */
export class JobEvents {
  private readonly moves = new Listeners<[StoreEvent]>();
  private readonly perJob = new Map<string, Set<JobListener>>();
  private readonly everything = new Listeners<[JobRow]>();

  /** Hears every committed move, with how it moved. Returns the function that stops it. */
  onEvent(listener: (event: StoreEvent) => void): () => void {
    return this.moves.on(listener);
  }

  /** Hears every job change (the dashboard's live view, the tray). Returns the function that stops it. */
  subscribeAll(listener: JobListener): () => void {
    return this.everything.on(listener);
  }

  /** Hears each change of one job. Returns the function that stops listening. */
  subscribe(jobId: string, listener: JobListener): () => void {
    let set = this.perJob.get(jobId);
    if (!set) this.perJob.set(jobId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.perJob.get(jobId) === set) this.perJob.delete(jobId);
    };
  }

  /** For the stores only: tells everyone of a committed (or heard and re-read) move. */
  publish(event: StoreEvent): void {
    this.moves.emitApart(event);
    const set = this.perJob.get(event.job.id);
    if (set) {
      for (const listener of [...set]) {
        try {
          listener(event.job);
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    }
    this.everything.emitApart(event.job);
  }

  /** How many per-job listeners are waiting; for tests and the status of the service. */
  size(): number {
    let n = 0;
    for (const set of this.perJob.values()) n += set.size;
    return n;
  }

  /** The store closed: nobody hears anything more. */
  clear(): void {
    this.moves.clear();
    this.perJob.clear();
    this.everything.clear();
  }
}
