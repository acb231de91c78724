/** What places a queued job in dispatch order. */
export interface QueueKey {
  id: string;
  priority: number;
  created_at: number;
  /** Each account has a queue of its own (null or absent: Profile F's one account, or the admin token). */
  account_id?: string | null;
  /** The job's constraint (scheduler.ts JobConstraint); absent: any agent. */
  req_provider?: string | null;
  req_agent_id?: string | null;
}

/**
 * Whether two queued jobs wait for some agent in common, so that one ahead of the other
 * delays it: a job pinned to an agent (a continued conversation) competes with jobs pinned
 * to the same agent and with unpinned jobs of its provider or of none; a ChatGPT job never
 * delays a Claude job.
 */
export function competes(a: Pick<QueueKey, 'req_provider' | 'req_agent_id'>, b: Pick<QueueKey, 'req_provider' | 'req_agent_id'>): boolean {
  if (a.req_agent_id && b.req_agent_id) return a.req_agent_id === b.req_agent_id;
  return !a.req_provider || !b.req_provider || a.req_provider === b.req_provider;
}

/** The fields a QueueOrder keeps of a job. */
function keyOf({ id, priority, created_at, account_id, req_provider, req_agent_id }: QueueKey): QueueKey {
  return { id, priority, created_at, account_id: account_id ?? null, req_provider: req_provider ?? null, req_agent_id: req_agent_id ?? null };
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
 * (on every GET of a queued job) cost a binary search and a walk of the jobs ahead
 * instead of a query.
 * The SQLite job store, the only writer of job rows, keeps it in step with them.
 */
export class QueueOrder {
  private keys: QueueKey[] = [];

  constructor(keys: Iterable<QueueKey>) {
    this.keys = [...keys].map(keyOf);
    this.keys.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  }

  get size(): number {
    return this.keys.length;
  }

  add(key: QueueKey): void {
    this.keys.splice(this.indexOf(key), 0, keyOf(key));
  }

  remove(key: QueueKey): void {
    const at = this.indexOf(key);
    if (this.keys[at]?.id === key.id) this.keys.splice(at, 1);
  }

  /**
   * 1-based place in dispatch order among the jobs that compete with `key` for an agent
   * (`competes`); 1 means next. Counts the jobs ahead, at most the account's 1 000.
   */
  position(key: QueueKey): number {
    const at = this.indexOf(key);
    let ahead = 0;
    for (let i = 0; i < at; i++) if (competes(this.keys[i]!, key)) ahead++;
    return ahead + 1;
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

/**
 * One QueueOrder per account: the 1 000-job limit and `queue_position` are the account's
 * own (api.md Limits), whoever else has work queued.
 */
export class AccountQueues {
  private readonly queues = new Map<string | null, QueueOrder>();

  constructor(keys: Iterable<QueueKey>) {
    const byAccount = new Map<string | null, QueueKey[]>();
    for (const key of keys) {
      const account = key.account_id ?? null;
      byAccount.set(account, [...(byAccount.get(account) ?? []), key]);
    }
    for (const [account, list] of byAccount) this.queues.set(account, new QueueOrder(list));
  }

  size(account: string | null): number {
    return this.queues.get(account)?.size ?? 0;
  }

  total(): number {
    let total = 0;
    for (const queue of this.queues.values()) total += queue.size;
    return total;
  }

  add(key: QueueKey): void {
    const account = key.account_id ?? null;
    let queue = this.queues.get(account);
    if (!queue) this.queues.set(account, (queue = new QueueOrder([])));
    queue.add(key);
  }

  remove(key: QueueKey): void {
    const account = key.account_id ?? null;
    const queue = this.queues.get(account);
    queue?.remove(key);
    if (queue?.size === 0) this.queues.delete(account);
  }

  /** 1-based place in dispatch order among the account's queued jobs that compete with it; 1 means next. */
  position(key: QueueKey): number {
    return this.queues.get(key.account_id ?? null)?.position(key) ?? 1;
  }
}

/**
 * Fairness between accounts (docs/hosted.md "Fairness"): `jobs`, each account's in its
 * own dispatch order, are dealt out one account at a time, starting with the account after
 * `lastServed`, so that each free agent takes the next job from the accounts with queued
 * work in turn and a busy account cannot starve the others. With one account (Profile F)
 * the order is unchanged.
 */
export function roundRobinByAccount<T extends { account_id: string | null }>(jobs: T[], lastServed: string | null | undefined): T[] {
  const lanes = new Map<string | null, T[]>();
  for (const job of jobs) {
    const lane = lanes.get(job.account_id);
    if (lane) lane.push(job);
    else lanes.set(job.account_id, [job]);
  }
  if (lanes.size <= 1) return jobs;
  // Accounts in a fixed order (by id), rotated to start after the one served last.
  const accounts = [...lanes.keys()].sort((a, b) => ((a ?? '') < (b ?? '') ? -1 : (a ?? '') > (b ?? '') ? 1 : 0));
  const after = lastServed === undefined ? -1 : accounts.findIndex((a) => (a ?? '') > (lastServed ?? ''));
  const start = after === -1 ? 0 : after;
  const turn = [...accounts.slice(start), ...accounts.slice(0, start)].map((a) => lanes.get(a)!);
  const out: T[] = [];
  for (let i = 0; out.length < jobs.length; i++) for (const lane of turn) if (i < lane.length) out.push(lane[i]!);
  return out;
}
