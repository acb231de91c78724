import type { FastifyInstance } from 'fastify';
import type { LiveFeed } from '../../service/admin/live-feed.js';
import type { StateConsole } from '../../service/admin/state.js';
import type { EventStreams } from './event-stream.js';

/**
 * GET /admin/v1/events, the dashboard's live view: `state` at once and after every change,
 * `job` for each job change, `log` for each new log entry, `job_deleted` ({ id }) for each
 * job deleted.
 */
export async function eventRoutes(
  app: FastifyInstance,
  { state, live, streams }: { state: StateConsole; live: LiveFeed; streams: EventStreams },
): Promise<void> {
  app.get('/events', { schema: { summary: 'Live updates (text/event-stream)' } }, (request, reply) => {
    streams.answer(request, reply, (send) => {
      void state.read().then((current) => send('state', current));
      return live.watch(
        (current) => send('state', current),
        (job) => send('job', job),
        (entry) => send('log', entry),
        (id) => send('job_deleted', { id }),
      );
    });
  });
}
