import type { FastifyInstance } from 'fastify';
import type { AgentScreen } from '../../core/agent-control.js';
import { ViewInput } from '../../core/screen.js';
import type { EventStreams } from './event-stream.js';
import { IdParams, NO_CONTENT } from '../../contract/admin/shared.js';

/** What these routes ask of the application layer (main/service/admin/agents.ts). */
export interface AgentScreensPort {
  screen(id: string): AgentScreen;
  input(id: string, event: ViewInput): Promise<void>;
}

/** /admin/v1/agents/:id/screen: an agent's page, to watch live and, during a login, to use. */
export async function agentScreenRoutes(app: FastifyInstance, { agents, streams }: { agents: AgentScreensPort; streams: EventStreams }): Promise<void> {
  app.post<{ Params: { id: string }; Body: ViewInput }>(
    '/agents/:id/screen/input',
    { schema: { summary: 'A click, wheel, key or text for the agent’s page, during a login', params: IdParams, body: ViewInput, response: NO_CONTENT } },
    async (request, reply) => {
      await agents.input(request.params.id, request.body);
      return reply.code(204).send();
    },
  );

  // `frame` events: pictures of the agent's page as it changes (the latest one at once). The
  // stream ends with the page (a browser restart); the dashboard reconnects to the new one.
  app.get<{ Params: { id: string } }>(
    '/agents/:id/screen',
    { schema: { summary: "The agent's page, live (text/event-stream of `frame` events)", params: IdParams } },
    (request, reply) => {
      const screen = agents.screen(request.params.id);
      streams.answer(request, reply, (send, end) =>
        screen.watch((frame) => {
          // A viewer that cannot keep up misses frames rather than piling them up here.
          if (!reply.raw.writableNeedDrain) send('frame', frame);
        }, end),
      );
    },
  );
}
