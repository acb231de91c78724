import type { FastifyInstance } from 'fastify';
import { ok } from '../../contract/admin/shared.js';
import { UsageQuery, UsageView, type UsageRange } from '../../contract/admin/usage.js';

/** What this route asks of the application layer (main/service/usage-report.ts). */
export interface UsagePort {
  view(range: UsageRange, filter: { keyId?: string; agentId?: string }, tzOffsetMinutes: number): Promise<UsageView>;
}

/** GET /admin/v1/usage: usage history, for every sender and agent or one of each. */
export async function usageRoutes(app: FastifyInstance, { usage }: { usage: UsagePort }): Promise<void> {
  app.get<{ Querystring: UsageQuery }>(
    '/usage',
    { schema: { summary: 'Usage history: jobs, failures and timings per hour (per day over 90 days)', querystring: UsageQuery, response: ok(UsageView) } },
    async (request) => {
      const { range = '24h', key, agent, tz_offset } = request.query;
      return usage.view(range, { ...(key ? { keyId: key } : {}), ...(agent ? { agentId: agent } : {}) }, Number(tz_offset ?? 0));
    },
  );
}
