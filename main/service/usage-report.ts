import type { UsageFigures, UsageGroupView, UsageRange, UsageView } from '../contract/admin/usage.js';
import { invalid } from '../core/errors.js';
import { timestamp } from '../core/timestamps.js';
import type { Clock } from '../core/clock.js';
import { PROVIDER_NAMES, isProvider } from '../core/providers.js';
import { HOUR_MS } from '../queue/hourly-usage.js';
import type { UsageGroup, UsageGroupRow, UsageHistory, UsageQuery } from '../queue/usage-history.js';
import { DAY_MS } from '../core/timestamps.js';

const RANGES: Record<UsageRange, { spanMs: number; bucketMs: number }> = {
  '24h': { spanMs: DAY_MS, bucketMs: HOUR_MS },
  '7d': { spanMs: 7 * DAY_MS, bucketMs: HOUR_MS },
  // Days: 2 160 hourly bars would be thinner than a pixel.
  '90d': { spanMs: 90 * DAY_MS, bucketMs: DAY_MS },
};

/** The sender of jobs submitted with the dashboard's token (auth.ts calls it 'admin'). */
export const ADMIN_KEY_ID = 'admin';

/** Where a report finds the name of an agent or a key (an AgentPool, a KeyStore); undefined: not known there. */
export interface Names {
  get(id: string): { name: string } | undefined;
}

/**
 * Usage history as the dashboard and `chatbridge usage` show it: the figures of
 * UsageHistory with names for a person (agents and keys, removed and revoked ones included).
 */
export class UsageReport {
  constructor(
    private readonly history: UsageHistory,
    private readonly agents: Names,
    private readonly keys: Names,
    private readonly clock: Clock,
  ) {}

  /** The dashboard's Usage page: a range ending now (the current bucket included). */
  async view(range: UsageRange, filter: Pick<UsageQuery, 'keyId' | 'agentId'>, tzOffsetMinutes = 0): Promise<UsageView> {
    if (Math.abs(tzOffsetMinutes) > 14 * 60) throw invalid('tz_offset', 'tz_offset is minutes east of UTC, from -840 to 840.');
    const { spanMs, bucketMs } = RANGES[range];
    const now = this.clock.now();
    // Hourly buckets stay on whole UTC hours (every time zone's hours but a few); days start at local midnight.
    const offsetMs = bucketMs === DAY_MS ? -tzOffsetMinutes * 60_000 : 0;
    const until = Math.floor((now - offsetMs) / bucketMs) * bucketMs + offsetMs + bucketMs;
    const since = until - spanMs;
    const report = await this.history.report({ since, until, ...filter }, bucketMs, offsetMs);
    return {
      since: timestamp(since),
      until: timestamp(until),
      bucket_ms: bucketMs,
      totals: report.totals,
      series: report.series.map((b) => ({ start: timestamp(b.start), figures: b.figures, providers: b.providers })),
      groups: {
        provider: this.named('provider', report.groups.provider),
        agent: this.named('agent', report.groups.agent),
        key: this.named('key', report.groups.key),
      },
    };
  }

  /** `chatbridge usage`: the figures since `sinceMs` ago, one row per provider, agent or key. */
  async groups(sinceMs: number, by: UsageGroup): Promise<{ since: number; until: number; rows: UsageGroupView[]; totals: UsageFigures }> {
    const until = this.clock.now();
    const since = until - sinceMs;
    const report = await this.history.report({ since, until }, sinceMs);
    return { since, until, rows: this.named(by, report.groups[by]), totals: report.totals };
  }

  private named(by: UsageGroup, rows: UsageGroupRow[]): UsageGroupView[] {
    return rows.map((row) => ({ ...row, name: this.nameOf(by, row.id) }));
  }

  private nameOf(by: UsageGroup, id: string | null): string {
    switch (by) {
      case 'provider':
        return id === null ? 'any provider (never ran)' : isProvider(id) ? PROVIDER_NAMES[id] : id;
      case 'agent':
        return id === null ? 'no agent (never ran)' : (this.agents.get(id)?.name ?? `${id} (removed)`);
      case 'key':
        if (id === null) return 'unknown (sent before keys were recorded)';
        if (id === ADMIN_KEY_ID) return 'admin token (dashboard)';
        return this.keys.get(id)?.name ?? id;
    }
  }
}
