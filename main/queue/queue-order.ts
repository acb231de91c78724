/** What places a queued job in dispatch order. */
export interface QueueKey {
  id: string;
  priority: number;
  created_at: number;
}

/** Dispatch order (decisions.md): higher priority, then older, then lower id. */
function before(a: QueueKey, b: QueueKey): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.created_at !== b.created_at) return a.created_at < b.created_at;
  return a.id < b.id;
}

/**
 * The queued jobs in dispatch order, kept in memory beside the database so that the
 * queue's size (the 1 000-job limit, on every submission) and a job's `queue_position`
 * (on every GET of a queued job) cost a binary search instead of a count over an index.
 * The JobStore, the only writer of job rows, keeps it in step with them.
 */
export class QueueOrder {
  private keys: QueueKey[] = [];

  constructor(keys: Iterable<QueueKey>) {
    this.keys = [...keys].map(({ id, priority, created_at }) => ({ id, priority, created_at }));
    this.keys.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  }

  get size(): number {
    return this.keys.length;
  }

  add(key: QueueKey): void {
    this.keys.splice(this.indexOf(key), 0, { id: key.id, priority: key.priority, created_at: key.created_at });
  }

  remove(key: QueueKey): void {
    const at = this.indexOf(key);
    if (this.keys[at]?.id === key.id) this.keys.splice(at, 1);
  }

  /** 1-based place in dispatch order; 1 means next. */
  position(key: QueueKey): number {
    return this.indexOf(key) + 1;
  }

  /** The first index whose key does not come before `key`. */
  private indexOf(key: QueueKey): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(this.keys[mid]!, key)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
