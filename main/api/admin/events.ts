import type { FastifyInstance } from 'fastify';
import type { EventStreams } from './event-stream.js';
import type { JobSummary } from '../../contract/admin/jobs.js';
import type { LogEntryView } from '../../contract/admin/logs.js';
import type { StatePort } from './state.js';
import type { AdminState } from '../../contract/admin/state.js';

/** What this route asks of the application layer (main/service/admin/live-feed.ts): a feed, and the function that stops it. */
export interface LiveFeedPort {
  watch(
    onState: (state: AdminState) => void,
    onJob: (job: JobSummary) => void,
    onLog: (entry: LogEntryView) => void,
    onJobDeleted: (id: string) => void,
  ): () => void;
}

/**
 * GET /admin/v1/events, the dashboard's live view: `state` at once and after every change,
 * `job` for each job change, `log` for each new log entry, `job_deleted` ({ id }) for each
 * job deleted.
 */
export async function eventRoutes(
  app: FastifyInstance,
  { state, live, streams }: { state: StatePort; live: LiveFeedPort; streams: EventStreams },
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
