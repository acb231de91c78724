import type { Agent } from './agent.js';
import type { Provider } from './providers.js';

/** An agent's row: what the account says about it (name, order, cap), not its live state. */
export interface AgentRecord {
  id: string;
  provider: Provider;
  name: string;
  enabled: boolean;
  position: number;
  cap_per_hour: number | null;
  /** Milliseconds between its jobs, before jitter; null follows the global setting. */
  pause_ms: number | null;
  /** Its browser's egress, `scheme://[user:pass@]host:port`; null for a direct connection. */
  proxy: string | null;
  created_at: number;
}

/**
 * The agents the queue dispatches to, as the agent runtime sees them: the rows to give a
 * live Agent each, and where to attach it. The queue's AgentPool implements it.
 */
export interface AgentRoster {
  list(): AgentRecord[];
  get(id: string): AgentRecord | undefined;
  /** Creates the row of a new agent (the simulator names its own). */
  create(provider: Provider, name: string): AgentRecord;
  /** Hands over the live Agent of a row, so jobs can be dispatched to it. */
  attach(agent: Agent): void;
  /** Hears of every change (rows changed here or by the command line, agents' states); returns the function that stops it. */
  onChange(listener: () => void): () => void;
}
