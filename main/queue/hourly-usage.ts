import type { Clock } from '../core/clock.js';
import type { HourStart } from '../core/jobs.js';
import { variantName } from './variant-caps.js';
import type { JobStore } from './job-store.js';

export const HOUR_MS = 3_600_000;

interface Start {
  /** job:attempt, which names one start wherever it is heard from. */
  id: string;
  /** The counts it is in: its agent's, its provider's, its variant's (`a:…`, `p:…`, `v:…`). */
  keys: string[];
  at: number;
}

/** A variant is named `provider/variant`, as caps name it. */
export type UsageScope = { agentId: string } | { provider: string } | { variant: string } | 'global';

/**
 * Dispatches (attempt starts) over a rolling 60-minute window, counted per agent, per
 * provider, per variant asked for and overall, for the hourly caps of decisions.md, the
 * status and the rotation.
 * It counts what the job store publishes: on a shared database, every instance's starts.
 * Starts arrive nearly in time order (another instance's a few milliseconds late), so the
 * window is a time-ordered queue whose head falls off as it ages.
 */
export class HourlyUsage {
  private starts: Start[] = [];
  private head = 0;
  private readonly byKey = new Map<string, number>();
  /** The ids of the starts in the window: a start heard twice is counted once. */
  private readonly counted = new Set<string>();

  constructor(private readonly clock: Clock) {}

  /**
   * Counts every start `store` publishes from now on (this instance's, and on a shared
   * database the other instances', whose events carry theirs), then those of the past hour
   * already committed. Hearing first: a start committed meanwhile is in both, counted once.
   */
  async follow(store: Pick<JobStore, 'onEvent' | 'attemptStartsSince'>): Promise<void> {
    store.onEvent(({ start, job }) => {
      if (start) this.record({ ...start, variant: job.variant ?? null });
    });
    for (const start of await store.attemptStartsSince(this.clock.now() - HOUR_MS)) this.record(start);
  }

  record({ job_id, attempt, agent_id: agentId, provider, started_at: at, variant }: HourStart): void {
    const id = `${job_id}:${attempt}`;
    if (at <= this.clock.now() - HOUR_MS || this.counted.has(id)) return;
    let i = this.starts.length;
    while (i > this.head && this.starts[i - 1]!.at > at) i--;
    const named = variantName(provider, variant);
    const keys = [key({ agentId }), key({ provider }), ...(named ? [key({ variant: named })] : [])];
    this.starts.splice(i, 0, { id, keys, at });
    this.counted.add(id);
    for (const k of keys) this.bump(k, 1);
  }

  count(scope: UsageScope): number {
    this.prune();
    if (scope === 'global') return this.starts.length - this.head;
    return this.byKey.get(key(scope)) ?? 0;
  }

  /** Whether one more dispatch fits under `cap` (null: no cap), besides `planned` ones not recorded yet. */
  allows(scope: UsageScope, cap: number | null, planned = 0): boolean {
    return cap === null || this.count(scope) + planned < cap;
  }

  /** When the next slot under `cap` frees: null while there is room (or no cap). */
  nextSlotAt(scope: UsageScope, cap: number | null): number | null {
    const used = this.count(scope);
    if (cap === null || used < cap) return null;
    // The slot frees when the (used - cap + 1)-th oldest start in scope leaves the window.
    let toSkip = used - cap;
    for (let i = this.head; i < this.starts.length; i++) {
      const s = this.starts[i]!;
      if (scope !== 'global' && !s.keys.includes(key(scope))) continue;
      if (toSkip-- === 0) return s.at + HOUR_MS;
    }
    return null;
  }

  private prune(): void {
    const cutoff = this.clock.now() - HOUR_MS;
    while (this.head < this.starts.length && this.starts[this.head]!.at <= cutoff) {
      const s = this.starts[this.head++]!;
      this.counted.delete(s.id);
      for (const k of s.keys) this.bump(k, -1);
    }
    // Compact now and then so the array does not grow without bound.
    if (this.head > 1024 && this.head * 2 > this.starts.length) {
      this.starts = this.starts.slice(this.head);
      this.head = 0;
    }
  }

  private bump(k: string, by: number): void {
    const n = (this.byKey.get(k) ?? 0) + by;
    if (n === 0) this.byKey.delete(k);
    else this.byKey.set(k, n);
  }
}

function key(scope: Exclude<UsageScope, 'global'>): string {
  return 'agentId' in scope ? `a:${scope.agentId}` : 'provider' in scope ? `p:${scope.provider}` : `v:${scope.variant}`;
}
