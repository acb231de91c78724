import type { AgentState } from '../core/agent.js';
import type { Provider } from '../core/providers.js';
import type { AgentPool } from './agent-pool.js';

/** One agent as every instance sees it: what its own device's pool says of it. */
export interface ClusterAgent {
  id: string;
  /** The device whose pool runs it (its browser profile lives there). */
  device_id: string;
  provider: Provider;
  name: string;
  enabled: boolean;
  position: number;
  created_at: number;
  cap_per_hour: number | null;
  state: AgentState;
  /** Takes a job now, caps aside: idle, not pausing between jobs, and its device online. */
  ready: boolean;
  cooldown_until: number | null;
  pause_until: number | null;
}

/** An instance running agents, as /v1/status.devices shows it (the shared pause aside). */
export interface ClusterDevice {
  id: string;
  name: string;
  /** Where its API answers; null when it runs with --no-api. */
  base_url: string | null;
  /** Running: this instance, or one beating within the lease that has not left. */
  online: boolean;
  agents: ClusterAgent[];
}

/**
 * What the API reads about agents: those of every device, since any instance answers any
 * request. The desktop has one device, itself (local-agents.ts); instances sharing a
 * PostgreSQL see each other's (storage/postgres/cluster-agents.ts). Managing an agent (rename,
 * disable, log in, proxy) stays with the local AgentPool of the device that runs it.
 */
export interface ClusterAgents {
  /** Every device, this one first, then the online ones, then by name. */
  devices(): ClusterDevice[];
  /** The agents that count: those of online devices, each device's in its user's order. */
  online(): ClusterAgent[];
  /** An agent of any device, online or not (a job may wait for its device to come back). */
  get(id: string): ClusterAgent | undefined;
  /** Hears of every change to what the above return; returns the function that stops it. */
  onChange(listener: () => void): () => void;
}

/** Could take work, now or once it is free: enabled and logged in (as AgentPool.isUsable). */
export function isUsable(agent: ClusterAgent): boolean {
  return agent.state === 'idle' || agent.state === 'busy' || agent.state === 'resting';
}

/** What `pool` says of each of its agents, as device `deviceId`'s. */
export function summarize(pool: AgentPool, deviceId: string): ClusterAgent[] {
  return pool.list().map((a) => ({
    id: a.id,
    device_id: deviceId,
    provider: a.provider,
    name: a.name,
    enabled: a.enabled,
    position: a.position,
    created_at: a.created_at,
    cap_per_hour: a.cap_per_hour,
    state: pool.state(a.id),
    ready: pool.isReady(a.id),
    cooldown_until: pool.cooldownUntil(a.id),
    pause_until: pool.pauseUntil(a.id),
  }));
}
