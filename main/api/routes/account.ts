import type { FastifyInstance } from 'fastify';
import type { StatusReport } from '../../status-report.js';
import type { Profile } from '../profile.js';
import { ErrorEnvelope, ModelList } from '../schemas.js';

const read = { scope: 'completions:read', budget: 'read' } as const;

/** GET /v1/status and GET /v1/models. */
export function accountRoutes(app: FastifyInstance, report: StatusReport, profile: Profile): void {
  app.get(
    '/v1/status',
    { config: read, schema: { summary: 'Capacity, queue and hourly usage', response: { 200: profile.schemas.status, default: ErrorEnvelope } } },
    async (request) => profile.statusBody(await report.status(request.accountId)),
  );
  app.get(
    '/v1/models',
    { config: read, schema: { summary: 'Models enabled now (OpenAI list shape)', response: { 200: ModelList, default: ErrorEnvelope } } },
    async () => report.models(),
  );
}
