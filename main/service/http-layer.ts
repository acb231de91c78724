/**
 * The HTTP layer as the service sees it: a function of the service's parts that returns the
 * server. The composition roots (main/cli/serve.ts, main/electron/app.ts) and the tests pass
 * main/api/server.ts's buildServer, so the application imports nothing of the HTTP layer
 * and the two meet only there, where TypeScript checks that these parts answer its ports.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { Profile } from '../contract/profile.js';
import type { AccountSecrets } from '../webhooks/account-secrets.js';
import type { AdminToken } from '../keys/admin-token.js';
import type { KeyStore } from '../keys/key-store.js';
import type { RequestLimits } from '../keys/rate-limit.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { AdminConsoles } from './admin/index.js';
import type { Completions } from './completions.js';
import type { StatusReport } from './status-report.js';

export interface ServedParts {
  completions: Completions;
  admin: AdminConsoles;
  report: StatusReport;
  accountSecrets: AccountSecrets;
  keys: KeyStore;
  adminToken: AdminToken;
  metrics: ServiceMetrics;
  profile: Profile;
  /** GET /readyz: null when ready, else the reason word. */
  notReadyBecause: () => Promise<'database' | 'agents' | null>;
  baseUrl: () => string;
  clock: Clock;
  ids: IdGenerator;
  version: string;
  /** The per-key request budgets several instances share through PostgreSQL; absent: in memory. */
  limits?: RequestLimits;
}

export type HttpLayer = (parts: ServedParts) => FastifyInstance;
