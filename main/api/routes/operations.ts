import type { FastifyInstance } from 'fastify';
import type { AdminToken } from '../../keys/admin-token.js';
import { CONTENT_TYPE } from '../../metrics/exposition.js';
import type { ServiceMetrics } from '../../metrics/service-metrics.js';
import type { RouteAccess } from '../auth.js';
import { Health, ProofQuery, ProofView } from '../../contract/operations.js';
import { ErrorEnvelope } from '../../contract/schemas.js';

export interface OperationsDeps {
  metrics: ServiceMetrics;
  adminToken: AdminToken;
  /** Null when ready, else the reason word. */
  notReadyBecause: () => Promise<Health['reason'] | null>;
  baseUrl: () => string;
}

/**
 * What monitors and the command line ask of the service: liveness and readiness (no key,
 * nothing beyond up or down), Prometheus metrics (admin token or a metrics:read key; in
 * hosted, an operator's key, never an account's), and the server's proof that it holds this
 * data dir.
 */
export async function operationRoutes(app: FastifyInstance, deps: OperationsDeps): Promise<void> {
  const health = { 200: Health, 503: Health, default: ErrorEnvelope };

  app.get('/healthz', { schema: { summary: 'The process answers', response: health } }, async (): Promise<Health> => ({ status: 'up' }));

  app.get('/readyz', { schema: { summary: 'The database is writable and the agents are attached', response: health } }, async (_request, reply) => {
    const reason = await deps.notReadyBecause();
    return reason ? reply.code(503).send({ status: 'down', reason } satisfies Health) : ({ status: 'up' } satisfies Health);
  });

  const metricsAccess: RouteAccess = { scope: 'metrics:read', budget: 'read', operator: true };
  app.get('/metrics', { config: metricsAccess, schema: { summary: 'Prometheus metrics (text format)' } }, async (_request, reply) =>
    reply.type(CONTENT_TYPE).send(await deps.metrics.registry.text()),
  );

  app.get<{ Querystring: { nonce: string } }>(
    '/admin/v1/proof',
    {
      schema: {
        summary: "The server's proof that it holds this data dir's admin token, asked before the token is sent",
        querystring: ProofQuery,
        response: { 200: ProofView, default: ErrorEnvelope },
      },
    },
    async (request) => ({ proof: deps.adminToken.prove(request.query.nonce, deps.baseUrl()) }),
  );
}
