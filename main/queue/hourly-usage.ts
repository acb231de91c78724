import type { Clock } from '../core/clock.js';

export const HOUR_MS = 3_600_000;

interface Start {
  agentId: string;
  provider: string;
  at: number;
}

export type UsageScope = { agentId: string } | { provider: string } | 'global';

/**
 * Dispatches (attempt starts) over a rolling 60-minute window, counted per agent, per
 * provider and overall, for the hourly caps of decisions.md. Starts arrive in time order,
 * so the window is a queue whose head falls off as it ages.
 */
export class HourlyUsage {
  private starts: Start[] = [];
  private head = 0;
  private readonly byKey = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  record(agentId: string, provider: string, at: number): void {
    this.starts.push({ agentId, provider, at });
    this.bump(`a:${agentId}`, 1);
    this.bump(`p:${provider}`, 1);
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
      if (scope !== 'global' && key(scope) !== ('agentId' in scope ? `a:${s.agentId}` : `p:${s.provider}`)) continue;
      if (toSkip-- === 0) return s.at + HOUR_MS;
    }
    return null;
  }

  private prune(): void {
    const cutoff = this.clock.now() - HOUR_MS;
    while (this.head < this.starts.length && this.starts[this.head]!.at <= cutoff) {
      const s = this.starts[this.head++]!;
      this.bump(`a:${s.agentId}`, -1);
      this.bump(`p:${s.provider}`, -1);
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

function key(scope: { agentId: string } | { provider: string }): string {
  return 'agentId' in scope ? `a:${scope.agentId}` : `p:${scope.provider}`;
}
