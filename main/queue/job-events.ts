import type { DeltaRow, JobRow, StoreEvent } from '../core/jobs.js';
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
  private readonly deltas = new Map<string, Set<(delta: DeltaRow) => void>>();

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
    return keyed(this.perJob, jobId, listener);
  }

  /**
   * Hears each piece of one job's answer as it is stored (JobStore.appendDelta), or, on a
   * shared database, once another instance's piece was read back. Pieces may come out of
   * order or not at all (a lost notice): a listener that sees a gap reads them again.
   */
  onDelta(jobId: string, listener: (delta: DeltaRow) => void): () => void {
    return keyed(this.deltas, jobId, listener);
  }

  /** For the stores only: tells everyone of a committed (or heard and re-read) move. */
  publish(event: StoreEvent): void {
    this.moves.emitApart(event);
    tellApart(this.perJob.get(event.job.id), event.job);
    this.everything.emitApart(event.job);
  }

  /** For the stores only: tells a job's listeners of a piece of its answer stored (or heard and re-read). */
  publishDelta(delta: DeltaRow): void {
    tellApart(this.deltas.get(delta.job_id), delta);
  }

  /** How many per-job listeners are waiting (holds: one each; event streams: two); for tests and the status of the service. */
  size(): number {
    let n = 0;
    for (const set of [...this.perJob.values(), ...this.deltas.values()]) n += set.size;
    return n;
  }

  /** The store closed: nobody hears anything more. */
  clear(): void {
    this.moves.clear();
    this.perJob.clear();
    this.everything.clear();
    this.deltas.clear();
  }
}

/** Adds `listener` to `key`'s set; the function returned removes it, and the set once empty. */
function keyed<T>(sets: Map<string, Set<(value: T) => void>>, key: string, listener: (value: T) => void): () => void {
  let set = sets.get(key);
  if (!set) sets.set(key, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0 && sets.get(key) === set) sets.delete(key);
  };
}

/** Tells each listener of `set`; one that throws has its error rethrown on its own, and the others still hear. */
function tellApart<T>(set: Set<(value: T) => void> | undefined, value: T): void {
  for (const listener of [...(set ?? [])]) {
    try {
      listener(value);
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}
