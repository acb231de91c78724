import type { AgentPool } from '../queue/agent-pool.js';
import type { ServedStorage } from '../storage/storage.js';

/**
 * GET /readyz: the database takes a write lock (a read-only, full-locked or closed database
 * fails), and every enabled agent has its browser attached (false while they start).
 */
export function readiness(storage: ServedStorage, pool: AgentPool) {
  return async (): Promise<'database' | 'agents' | null> => {
    if (!(await storage.answers())) return 'database';
    const attached = pool.list().every((a) => !a.enabled || pool.liveAgent(a.id) !== undefined);
    return attached ? null : 'agents';
  };
}
