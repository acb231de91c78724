import type { IdGenerator } from '../core/ids.js';
import type { AgentRecord } from './agent-pool.js';
import type { HourlyUsage } from './hourly-usage.js';
import type { Rotation } from '../contract/enumerations.js';

/**
 * Chooses among eligible agents (given in the user's order) by the account's rotation
 * strategy (decisions.md). Round robin remembers where it stopped across calls.
 */
export class RotationPicker {
  private lastPosition = -Infinity;

  constructor(
    private readonly usage: HourlyUsage,
    private readonly ids: IdGenerator,
  ) {}

  pick(strategy: Rotation, candidates: readonly AgentRecord[]): AgentRecord {
    if (candidates.length === 0) throw new Error('pick() needs at least one candidate');
    let chosen: AgentRecord;
    switch (strategy) {
      case 'ordered':
        chosen = candidates[0]!;
        break;
      case 'random':
        chosen = candidates[this.ids.pick(candidates.length)]!;
        break;
      case 'least_used': {
        chosen = candidates[0]!;
        let fewest = this.usage.count({ agentId: chosen.id });
        for (const c of candidates.slice(1)) {
          const used = this.usage.count({ agentId: c.id });
          if (used < fewest) [chosen, fewest] = [c, used];
        }
        break;
      }
      case 'round_robin':
        chosen = candidates.find((c) => c.position > this.lastPosition) ?? candidates[0]!;
        break;
    }
    this.lastPosition = chosen.position;
    return chosen;
  }
}
