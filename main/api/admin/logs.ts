import type { FastifyInstance } from 'fastify';
import { LogList, LogsQuery, type LogEntryView } from '../../contract/admin/logs.js';
import { ok } from '../../contract/admin/shared.js';
import type { LogLevel } from '../../contract/enumerations.js';

/** What this route asks of the application layer (main/service/admin/logs.ts). */
export interface LogsPort {
  recent(limit: number, minLevel?: LogLevel): LogEntryView[];
}

/** GET /admin/v1/logs: the service's recent log. */
export async function logRoutes(app: FastifyInstance, { logs }: { logs: LogsPort }): Promise<void> {
  app.get<{ Querystring: { limit?: string; level?: LogLevel } }>(
    '/logs',
    { schema: { summary: 'Recent log entries, oldest first', querystring: LogsQuery, response: ok(LogList) } },
    async (request) => ({ entries: logs.recent(Number(request.query.limit ?? 200), request.query.level) }),
  );
}
