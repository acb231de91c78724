import type { JobRow } from '../core/jobs.js';

type Listener = (job: JobRow) => void;

/**
 * In-process notification of job changes. Long polls wait here instead of polling the
 * database: the store's caller publishes each job it moved right after the commit.
 */
export class JobEvents {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly everything = new Set<Listener>();

  /** Hears every job change (the dashboard's live view). Returns the function that stops it. */
  subscribeAll(listener: Listener): () => void {
    this.everything.add(listener);
    return () => this.everything.delete(listener);
  }

  /** Returns the function that stops listening. */
  subscribe(jobId: string, listener: Listener): () => void {
    let set = this.listeners.get(jobId);
    if (!set) this.listeners.set(jobId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(jobId) === set) this.listeners.delete(jobId);
    };
  }

  publish(job: JobRow): void {
    const set = this.listeners.get(job.id);
    if (set) for (const l of [...set]) l(job);
    for (const l of this.everything) l(job);
  }

  /** How many listeners are waiting; for tests and the status of the service. */
  size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
