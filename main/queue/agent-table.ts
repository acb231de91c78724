import type { AgentRecord } from '../core/agent-roster.js';
import type { Provider } from '../core/providers.js';

/** An agent's row as kept: its record, and until when it rests after a usage limit (null: it does not). */
export type AgentRow = AgentRecord & { rest_until: number | null };

/**
 * The agents' rows, the AgentPool's storage. They belong to the machine whose browsers run
 * them (their profiles are in its data dir), so whichever engine holds the rest, they are
 * kept in the data dir's database (main/storage/sqlite/agent-table.ts); a shared database
 * hears of them as each device publishes them (ClusterAgents). Synchronous, as the pool's
 * reads are: they are local and small.
 */
export interface AgentTable {
  /** In the user's order: by position, then age. */
  rows(): AgentRow[];
  /** A new row, enabled, uncapped and last in the user's order. */
  add(row: { id: string; provider: Provider; name: string; createdAt: number }): void;
  /** Changes one row; no row by that id is no change. */
  update(id: string, change: AgentChange): void;
  remove(id: string): void;
}

/** What the pool, the admin console and the command line change of a row. */
export type AgentChange = Partial<Pick<AgentRow, 'name' | 'enabled' | 'cap_per_hour' | 'pause_ms' | 'proxy' | 'rest_until'>>;
