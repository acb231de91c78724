import type { AgentPool } from './agent-pool.js';
import { summarize, type ClusterAgent, type ClusterAgents, type ClusterDevice } from './cluster-agents.js';

/** Who this instance is among the devices: its id, name and where its API answers. */
export interface DeviceIdentity {
  id: string;
  name: string;
  /** Known once the API listens; null with --no-api. */
  baseUrl: () => string | null;
}

/** The desktop's cluster: one device, this one, always online, with the agents of its pool. */
export class LocalAgents implements ClusterAgents {
  constructor(
    private readonly pool: AgentPool,
    private readonly self: DeviceIdentity,
  ) {}

  devices(): ClusterDevice[] {
    return [{ id: this.self.id, name: this.self.name, base_url: this.self.baseUrl(), online: true, agents: this.online() }];
  }

  online(): ClusterAgent[] {
    return summarize(this.pool, this.self.id);
  }

  get(id: string): ClusterAgent | undefined {
    return this.pool.get(id) ? this.online().find((a) => a.id === id) : undefined;
  }

  onChange(listener: () => void): () => void {
    return this.pool.watch(listener);
  }

  /** Nothing to publish or to follow: the one device is read from its own pool. */
  async start(): Promise<void> {}

  async close(): Promise<void> {}
}
