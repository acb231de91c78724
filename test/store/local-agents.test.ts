/** The ClusterAgents contract on the desktop: one device, this one, over its own AgentPool. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomIds } from '../../main/core/ids.js';
import { AgentPool } from '../../main/queue/agent-pool.js';
import { SqliteAgentTable } from '../../main/storage/sqlite/agent-table.js';
import { openDatabase } from '../../main/storage/sqlite/db.js';
import { LocalAgents } from '../../main/queue/local-agents.js';
import { ManualClock } from '../support/manual-clock.js';
import { T0 } from '../support/new-job.js';
import { clusterAgentsContract, type AgentsUnderTest } from './cluster-agents-contract.js';

clusterAgentsContract('one device (the desktop)', async (): Promise<AgentsUnderTest> => {
  const dir = mkdtempSync(join(tmpdir(), 'chatbridge-agents-'));
  const db = openDatabase(dir);
  const clock = new ManualClock(T0);
  const pool = new AgentPool(new SqliteAgentTable(db), clock, randomIds);
  const self = { id: 'local', name: 'laptop', base_url: 'http://127.0.0.1:8787' };
  return {
    pool,
    agents: new LocalAgents(pool, { id: self.id, name: self.name, baseUrl: () => self.base_url }),
    self,
    now: () => clock.now(),
    async close() {
      pool.stop();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
