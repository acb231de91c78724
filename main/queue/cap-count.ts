import type { Claim } from '../core/jobs.js';
import { HOUR_MS } from './hourly-usage.js';
import { variantName } from './variant-caps.js';

/** Attempt starts in the rolling hour of one agent (on one provider) for jobs asking for one variant (or none), as a store counts them. */
export interface StartCount {
  agent_id: string;
  provider: string;
  variant: string | null;
  n: number;
}

/** Whether any claim carries a cap: only then does a dispatch count (and, on PostgreSQL, lock). */
export function capsAsked(claims: readonly Claim[]): boolean {
  return claims.some(({ caps }) => caps !== undefined && Object.values(caps).some((cap) => cap !== null && cap !== undefined));
}


/** The window's start: a start at or before it has left the hour (as HourlyUsage prunes it). */
export function capWindowStart(now: number): number {
  return now - HOUR_MS;
}

/**
 * The hourly caps as a dispatch transaction holds them: the starts counted in that
 * transaction (after `capWindowStart(now)`), and each claim it accepts as it goes, so the
 * claims of one round are held to the caps together.
 */
export class CapCount {
  private global = 0;
  private readonly agents = new Map<string, number>();
  private readonly providers = new Map<string, number>();
  private readonly variants = new Map<string, number>();

  constructor(counts: readonly StartCount[]) {
    for (const { agent_id, provider, variant, n } of counts) this.add(agent_id, provider, variantName(provider, variant), n);
  }

  /** Whether `claim` fits under its caps; if it does, it is counted. */
  take(claim: Claim): boolean {
    const caps = claim.caps;
    const under = (used: number, cap: number | null | undefined) => cap === null || cap === undefined || used < cap;
    const fits =
      under(this.agents.get(claim.agentId) ?? 0, caps?.agent) &&
      under(this.providers.get(claim.provider) ?? 0, caps?.provider) &&
      under(this.global, caps?.global) &&
      (claim.variant === undefined || under(this.variants.get(claim.variant) ?? 0, caps?.variant));
    if (fits) this.add(claim.agentId, claim.provider, claim.variant ?? null, 1);
    return fits;
  }

  private add(agent: string, provider: string, variant: string | null, n: number): void {
    this.global += n;
    this.agents.set(agent, (this.agents.get(agent) ?? 0) + n);
    this.providers.set(provider, (this.providers.get(provider) ?? 0) + n);
    if (variant !== null) this.variants.set(variant, (this.variants.get(variant) ?? 0) + n);
  }
}
