/**
 * The hourly caps as the scheduler holds jobs to them (decisions.md, "Agents and capacity"):
 * per agent, per provider, overall, and per variant asked for (`settings variants cap`),
 * counted over the rolling hour of dispatches (HourlyUsage), and the wake-up when the
 * earliest full cap frees a slot. The store holds each dispatch to the same caps in its
 * transaction (cap-count.ts); this is the scheduler's own view, for choosing and waiting.
 */
import type { Clock, TimerHandle } from '../core/clock.js';
import type { HourlyCaps } from '../core/jobs.js';
import type { Settings } from '../settings/settings-store.js';
import type { AgentPool, AgentRecord } from './agent-pool.js';
import type { HourlyUsage, UsageScope } from './hourly-usage.js';
import { variantName } from './variant-caps.js';

type CappedAgent = Pick<AgentRecord, 'id' | 'provider' | 'cap_per_hour'>;

/** The caps a start on `agent` counts against, and that of the job's `variant` (provider/variant) if it asks for one. */
export function capsOf(agent: Pick<AgentRecord, 'provider' | 'cap_per_hour'>, settings: Settings, variant: string | null = null): HourlyCaps {
  const caps = { agent: agent.cap_per_hour, provider: settings.providerCaps[agent.provider] ?? null, global: settings.globalCap };
  return variant ? { ...caps, variant: settings.variantCaps[variant] ?? null } : caps;
}

export class HourlyCapGate {
  private timer: { at: number; handle: TimerHandle } | null = null;

  constructor(
    private readonly usage: HourlyUsage,
    private readonly pool: AgentPool,
    private readonly clock: Clock,
    /** Called when a full cap frees a slot (wakeWhenFree). */
    private readonly wake: () => void,
  ) {}

  /**
   * Whether `agent` could take one more job under its own, its provider's and the global cap,
   * counting the dispatches `planned` in the round under way besides those recorded.
   */
  underCaps(agent: CappedAgent, settings: Settings, planned: readonly AgentRecord[] = []): boolean {
    const inScope = (scope: UsageScope) =>
      planned.filter((p) => scope === 'global' || ('agentId' in scope ? p.id === scope.agentId : 'provider' in scope && p.provider === scope.provider)).length;
    const fits = (scope: UsageScope, cap: number | null) => this.usage.allows(scope, cap, inScope(scope));
    const caps = capsOf(agent, settings);
    return fits({ agentId: agent.id }, caps.agent) && fits({ provider: agent.provider }, caps.provider) && fits('global', caps.global);
  }

  /**
   * The hourly cap of the variant a job asks for (of `provider`) when it is used up, counting
   * the starts of it `planned` in the round under way, with when its next slot frees (null:
   * not by itself, a cap of 0); null while there is room, or no cap.
   */
  variantCapped(provider: string | null, variantId: string | null | undefined, settings: Settings, planned = 0): { variant: string; cap: number; frees: number | null } | null {
    const variant = provider ? variantName(provider, variantId) : null;
    const cap = variant === null ? undefined : settings.variantCaps[variant];
    if (variant === null || cap === undefined || this.usage.allows({ variant }, cap, planned)) return null;
    return { variant, cap, frees: this.usage.nextSlotAt({ variant }, cap) };
  }

  /** When `agent` is under every cap again: null while it is (or no cap holds it). */
  freeAt(agent: CappedAgent, settings: Settings): number | null {
    const caps = capsOf(agent, settings);
    const slots = [
      this.usage.nextSlotAt({ agentId: agent.id }, caps.agent),
      this.usage.nextSlotAt({ provider: agent.provider }, caps.provider),
      this.usage.nextSlotAt('global', caps.global),
    ].filter((s): s is number => s !== null);
    return slots.length > 0 ? Math.max(...slots) : null;
  }

  /** Some job waits only for an hourly cap: wake when the earliest full cap frees a slot. */
  wakeWhenFree(settings: Settings): void {
    const slots: (number | null)[] = [this.usage.nextSlotAt('global', settings.globalCap)];
    for (const a of this.pool.list()) {
      slots.push(this.usage.nextSlotAt({ agentId: a.id }, a.cap_per_hour));
      slots.push(this.usage.nextSlotAt({ provider: a.provider }, settings.providerCaps[a.provider]));
    }
    for (const [variant, cap] of Object.entries(settings.variantCaps)) slots.push(this.usage.nextSlotAt({ variant }, cap));
    const at = Math.min(...slots.filter((s): s is number => s !== null));
    if (!Number.isFinite(at) || (this.timer && this.timer.at <= at && this.timer.at > this.clock.now())) return;
    this.timer?.handle.cancel();
    this.timer = {
      at,
      handle: this.clock.setTimer(() => {
        this.timer = null;
        this.wake();
      }, at - this.clock.now()),
    };
  }

  /** No more wake-ups (the scheduler stops). */
  stop(): void {
    this.timer?.handle.cancel();
  }
}
