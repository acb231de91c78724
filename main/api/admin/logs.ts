import type { FastifyInstance } from 'fastify';
import type { LogLevel } from '../../logs/log-book.js';
import type { LogsConsole } from '../../service/admin/logs.js';
import { LogList, LogsQuery } from './logs-schemas.js';
import { ok } from './shared-schemas.js';

/** GET /admin/v1/logs: the service's recent log. */
export async function logRoutes(app: FastifyInstance, { logs }: { logs: LogsConsole }): Promise<void> {
  app.get<{ Querystring: { limit?: string; level?: LogLevel } }>(
    '/logs',
    { schema: { summary: 'Recent log entries, oldest first', querystring: LogsQuery, response: ok(LogList) } },
    async (request) => ({ entries: logs.recent(Number(request.query.limit ?? 200), request.query.level) }),
  );
}
