import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AdminToken } from '../../keys/admin-token.js';
import type { RouteAccess } from '../auth.js';
import { accountRoutes, type AccountsPort } from './accounts.js';
import { adminTokenRoutes } from './admin-token.js';
import { agentScreenRoutes, type AgentScreensPort } from './agent-screen.js';
import { agentRoutes, type AgentsPort } from './agents.js';
import { EventStreams } from './event-stream.js';
import { eventRoutes, type LiveFeedPort } from './events.js';
import { jobRoutes, type JobsPort } from './jobs.js';
import { keyRoutes, type KeysPort } from './keys.js';
import { logRoutes, type LogsPort } from './logs.js';
import { stateRoutes, type StatePort } from './state.js';
import { usageRoutes, type UsagePort } from './usage.js';
import { webhookRoutes, type WebhooksPort } from './webhooks.js';

/** The dashboard's consoles, one per resource, as the routes ask for them (main/service/admin/ provides them). */
export interface AdminPorts {
  state: StatePort;
  agents: AgentsPort & AgentScreensPort;
  keys: KeysPort;
  accounts: AccountsPort;
  jobs: JobsPort;
  webhooks: WebhooksPort;
  logs: LogsPort;
  usage: UsagePort;
  live: LiveFeedPort;
}

export interface AdminApiOptions {
  consoles: AdminPorts;
  adminToken: AdminToken;
  /** Lets a request through as `access` asks (or throws its 401, 403 or 429), and records who called. */
  signIn: (request: FastifyRequest, access: RouteAccess) => Promise<void>;
}

/**
 * The dashboard's API, registered under /admin/v1: one plugin per resource, each with the
 * console it needs. Every route takes the admin token only (an API key gets 403), checked
 * once here for the whole subtree; same envelope and Host rules as /v1.
 */
export async function adminApi(app: FastifyInstance, { consoles, adminToken, signIn }: AdminApiOptions): Promise<void> {
  app.addHook('onRequest', (request) => signIn(request, { admin: true }));

  const streams = new EventStreams();
  // Open event streams end when the server closes, so shutdown does not wait on them.
  app.addHook('preClose', async () => streams.endAll());
  // They were opened with the old token: the dashboard reconnects, gets 401 and asks for the new link.
  adminToken.onRotate(() => streams.endAll());

  const { state, agents, keys, accounts, jobs, webhooks, logs, usage, live } = consoles;
  await app.register(stateRoutes, { state });
  await app.register(agentRoutes, { agents });
  await app.register(agentScreenRoutes, { agents, streams });
  await app.register(accountRoutes, { accounts });
  await app.register(keyRoutes, { keys });
  await app.register(jobRoutes, { jobs });
  await app.register(webhookRoutes, { webhooks });
  await app.register(usageRoutes, { usage });
  await app.register(logRoutes, { logs });
  await app.register(eventRoutes, { state, live, streams });
  await app.register(adminTokenRoutes, { adminToken });
}
