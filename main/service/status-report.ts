import { PROVIDERS, type Provider, type VariantCatalog } from '../core/providers.js';
import { CHAT_MODELS, type ModelList, type Status } from '../contract/schemas.js';
import { isUsable, type ClusterAgent, type ClusterAgents } from '../queue/cluster-agents.js';
import type { HourlyUsage, UsageScope } from '../queue/hourly-usage.js';
import type { Viewer } from '../core/jobs.js';
import type { JobStore } from '../queue/job-store.js';
import type { SettingsStore } from '../settings/settings-store.js';

/** GET /v1/status and GET /v1/models, shaped as decisions.md fixes them. */
export class StatusReport {
  constructor(
    private readonly store: JobStore,
    /** Every device's agents: any instance answers for the whole cluster. */
    private readonly cluster: ClusterAgents,
    private readonly usage: HourlyUsage,
    private readonly settings: SettingsStore,
    /** The profile's timestamp format. */
    private readonly timestamp: (ms: number) => string,
    private readonly variants: VariantCatalog,
  ) {}

  /** The figures every caller may see, and `account`'s own queue (null: Profile F's one account; the dashboard sees every account's). */
  async status(account: Viewer): Promise<Status> {
    const settings = this.settings.get();
    const cap = (scope: UsageScope, limit: number | null) => {
      const next = this.usage.nextSlotAt(scope, limit);
      return {
        rate_limit_per_hour: limit,
        used_this_hour: this.usage.count(scope),
        next_slot_at: next === null ? null : this.timestamp(next),
      };
    };
    const summary = (a: ClusterAgent) => ({
      id: a.id,
      name: a.name,
      provider: a.provider,
      state: a.state,
      cooldown_until: a.cooldown_until === null ? null : this.timestamp(a.cooldown_until),
      ...cap({ agentId: a.id }, a.cap_per_hour),
    });
    const devices = this.cluster.devices();
    // An offline device's agents are shown with it, and counted nowhere.
    const counted = devices.filter((d) => d.online).flatMap((d) => d.agents);
    const idle = counted.filter((a) => a.state === 'idle').length;
    const oldest = await this.store.oldestQueuedAt(account);
    const depth = await this.store.queuedCount(account);
    return {
      providers: Object.fromEntries(
        PROVIDERS.map((p) => {
          const mine = counted.filter((a) => a.provider === p);
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
      agents: { idle, busy: counted.filter((a) => a.state === 'busy').length, total: counted.length },
      // The pause is the cluster's: paused, no device counts as online (decisions.md).
      devices: devices.map((d) => ({
        name: d.name,
        base_url: d.base_url,
        online: d.online && !settings.paused,
        paused: settings.paused,
        agents: d.agents.map(summary),
      })),
      global: cap('global', settings.globalCap),
      rotation: settings.rotation,
    };
  }

  /**
   * `service/auto` first while any agent of an online device is enabled, then each provider
   * with an enabled, logged-in agent there, each followed by its variants (`service/<provider>/<variant>`):
   * (H) for an account, those the operator allows it.
   */
  models(account: string | null): ModelList {
    const allowed = this.settings.get().tenantVariants;
    const offered = (provider: Provider) => this.variants(provider).filter((v) => account === null || allowed.includes(`${provider}/${v.id}`));
    const enabled = this.cluster.online().filter((a) => a.enabled);
    if (enabled.length === 0) return { object: 'list', data: [] };
    const created = Math.floor(Math.min(...enabled.map((a) => a.created_at)) / 1000);
    const loggedIn = new Set(enabled.filter(isUsable).map((a) => a.provider));
    return {
      object: 'list',
      data: CHAT_MODELS.filter((m) => m === 'service/auto' || loggedIn.has(m.slice('service/'.length) as never))
        .flatMap((id) => (id === 'service/auto' ? [id] : [id, ...offered(id.slice(8) as Provider).map((v) => `${id}/${v.id}`)]))
        .map((id) => ({ id, object: 'model' as const, created, owned_by: id === 'service/auto' ? 'chatbridge' : id.split('/')[1]! })),
    };
  }
}
