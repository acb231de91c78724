import type { AgentControl } from '../core/agent-control.js';
import type { SiteCheck } from '../core/site-check.js';

/**
 * What each agent's account is known to offer of its provider's variants (decisions.md,
 * "Models and modes within a provider"), so that a job asking for one goes to an agent that
 * may offer it. Known from the agent's last site check, and put right by every attempt that
 * finds otherwise: a refusal says what the picker offered, an answer under a variant shows
 * it offered. A refusal on a page that showed no choices (its picker still loading) rules out
 * only the variant refused. An agent never looked at may offer anything.
 */
export class VariantOffers {
  private readonly offered = new Map<string, Set<string>>();
  /** Variants refused where the page showed no choices, on top of what `offered` says. */
  private readonly refusedUnseen = new Map<string, Set<string>>();

  /** What the agent's page offered when last looked at (a site check, a refused variant). */
  learn(agentId: string, variants: readonly string[]): void {
    this.offered.set(agentId, new Set(variants));
    this.refusedUnseen.delete(agentId);
  }

  /** The agent refused `variant` on a page that showed no choices: that one is not offered for now. */
  refused(agentId: string, variant: string): void {
    const refused = this.refusedUnseen.get(agentId) ?? new Set<string>();
    this.refusedUnseen.set(agentId, refused.add(variant));
  }

  /** The agent answered under `variant`: its account offers it, whatever an older look said. */
  answeredUnder(agentId: string, variant: string): void {
    this.offered.get(agentId)?.add(variant);
    this.refusedUnseen.get(agentId)?.delete(variant);
  }

  /** Whether the agent may offer `variant`: not known not to. */
  mayOffer(agentId: string, variant: string): boolean {
    if (this.refusedUnseen.get(agentId)?.has(variant)) return false;
    return this.offered.get(agentId)?.has(variant) ?? true;
  }
}

/** `control` as it was, but every site check it makes also tells `offers` what the agent's account offers now. */
export function learningFromSiteChecks(control: AgentControl, offers: VariantOffers): AgentControl {
  return new Proxy(control, {
    get(target, key) {
      if (key === 'checkSite') {
        return async (agentId: string, options: { send: boolean }): Promise<SiteCheck> => {
          const check = await target.checkSite(agentId, options);
          if (check.variants) offers.learn(agentId, check.variants);
          return check;
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
