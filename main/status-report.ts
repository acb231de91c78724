import { PROVIDERS } from './core/providers.js';
import { CHAT_MODELS, type ModelList, type Status } from './api/schemas.js';
import type { AgentPool } from './queue/agent-pool.js';
import type { HourlyUsage, UsageScope } from './queue/hourly-usage.js';
import type { Viewer } from './core/jobs.js';
import type { JobStore } from './queue/job-store.js';
import type { SettingsStore } from './settings/settings-store.js';

/** GET /v1/status and GET /v1/models, shaped as decisions.md fixes them. */
export class StatusReport {
  constructor(
    private readonly store: JobStore,
    private readonly pool: AgentPool,
    private readonly usage: HourlyUsage,
    private readonly settings: SettingsStore,
    private readonly baseUrl: () => string,
    /** The profile's timestamp format. */
    private readonly timestamp: (ms: number) => string,
  ) {}

  /** The figures every caller may see, and `account`'s own queue (null: Profile F's one account; the dashboard sees every account's). */
  async status(account: Viewer): Promise<Status> {
    const settings = this.settings.get();
    const agents = this.pool.list();
    const cap = (scope: UsageScope, limit: number | null) => {
      const next = this.usage.nextSlotAt(scope, limit);
      return {
        rate_limit_per_hour: limit,
        used_this_hour: this.usage.count(scope),
        next_slot_at: next === null ? null : this.timestamp(next),
      };
    };
    const summaries = agents.map((a) => {
      const cooldown = this.pool.cooldownUntil(a.id);
      return {
        id: a.id,
        name: a.name,
        provider: a.provider,
        state: this.pool.state(a.id),
        cooldown_until: cooldown === null ? null : this.timestamp(cooldown),
        ...cap({ agentId: a.id }, a.cap_per_hour),
      };
    });
    const idle = summaries.filter((a) => a.state === 'idle').length;
    const oldest = await this.store.oldestQueuedAt(account);
    const depth = await this.store.queuedCount(account);
    return {
      providers: Object.fromEntries(
        PROVIDERS.map((p) => {
          const mine = summaries.filter((a) => a.provider === p);
          return [
            p,
            {
              agents_idle: mine.filter((a) => a.state === 'idle').length,
              agents_total: mine.length,
              ...cap({ provider: p }, settings.providerCaps[p]),
            },
          ];
        }),
      ),
      queue: { depth, oldest_queued_at: oldest === null ? null : this.timestamp(oldest) },
      agents: { idle, busy: summaries.filter((a) => a.state === 'busy').length, total: summaries.length },
      devices: [{ base_url: this.baseUrl(), online: !settings.paused, paused: settings.paused, agents: summaries }],
      global: cap('global', settings.globalCap),
      rotation: settings.rotation,
    };
  }

  /** `service/auto` first while any agent is enabled, then each provider with an enabled, logged-in agent. */
  models(): ModelList {
    const enabled = this.pool.list().filter((a) => a.enabled);
    if (enabled.length === 0) return { object: 'list', data: [] };
    const created = Math.floor(Math.min(...enabled.map((a) => a.created_at)) / 1000);
    const loggedIn = new Set(enabled.filter((a) => this.pool.isUsable(a.id)).map((a) => a.provider));
    return {
      object: 'list',
      data: CHAT_MODELS.filter((m) => m === 'service/auto' || loggedIn.has(m.slice('service/'.length) as never)).map(
        (id) => ({ id, object: 'model' as const, created, owned_by: id === 'service/auto' ? 'chatbridge' : id.slice(8) }),
      ),
    };
  }
}
