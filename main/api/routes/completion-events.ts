import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { invalid } from '../../core/errors.js';
import type { JobView } from '../../core/jobs.js';
import type { CompletionsPort } from '../../contract/completions-port.js';
import { parseEventId } from '../../contract/job-stream.js';
import type { Profile } from '../../contract/profile.js';
import { ErrorEnvelope, JobParams } from '../../contract/schemas.js';
import type { HoldLimits } from '../holds.js';
import { openEventStream } from '../sse.js';
import type { RouteAccess } from '../auth.js';

const read: RouteAccess = { scope: 'completions:read', budget: 'read' };

const description = `Server-sent events of the job's life, until it is final:

- \`event: job\`: the whole job object, as GET /v1/completions/{id} gives it, at the start and at each change of status;
- \`event: delta\`: \`{"text": "…"}\`, the next characters of the answer as the page renders it. The texts, joined, equal
  the final \`response\` for a stream that saw the job run;
- \`: keep-alive\` comments every 15 s.

Every event has an \`id\`: send the last one back as \`Last-Event-ID\` to resume a cut stream where it stood.
The stream ends after the final status. Errors before the stream begins (404, 401, 403, 429) are JSON, as on every route.`;

export const LastEventIdHeaders = Type.Object({ 'last-event-id': Type.Optional(Type.String({ maxLength: 64 })) });

/** A stream's 200 in the OpenAPI document: text/event-stream, whose events the description tells. */
export const EVENT_STREAM_RESPONSE = {
  description: 'A text/event-stream',
  content: { 'text/event-stream': { schema: { type: 'string' } } },
} as const;

export interface CompletionEventOptions {
  completions: Pick<CompletionsPort, 'get' | 'follow' | 'agentName' | 'queuePosition' | 'waitReason'>;
  profile: Profile;
  holds: HoldLimits;
  keepAliveMs: number;
}

/** GET /v1/completions/{id}/events (decisions.md, "Following a job"): the caller's own job, read scope. */
export async function completionEventRoutes(app: FastifyInstance, { completions, profile, holds, keepAliveMs }: CompletionEventOptions): Promise<void> {
  const present = async (job: JobView) =>
    profile.jobObject(job, completions.agentName(job), await completions.queuePosition(job), completions.waitReason(job) ?? undefined);

  app.get<{ Params: { id: string }; Headers: { 'last-event-id'?: string } }>(
    '/v1/completions/:id/events',
    {
      config: read,
      schema: {
        summary: "Follow a job: server-sent events of its status and its answer as it renders",
        description,
        params: JobParams,
        headers: LastEventIdHeaders,
        response: { 200: EVENT_STREAM_RESPONSE, default: ErrorEnvelope },
      },
    },
    async (request, reply) => {
      const last = request.headers['last-event-id'];
      const from = last === undefined ? null : parseEventId(last);
      if (last !== undefined && !from) throw invalid('Last-Event-ID', 'Last-Event-ID must be the id of an event of this stream.');
      const job = await completions.get(request.params.id, request.accountId);
      // A stream holds a connection as a long poll does, and counts against the same caps.
      await holds.during(request, () =>
        new Promise<void>((resolve) => {
          const stream = openEventStream(request, reply, keepAliveMs);
          const stop = completions.follow(job, from, {
            send: async (event) =>
              stream.send(JSON.stringify(event.kind === 'job' ? await present(event.job) : { text: event.text }), { event: event.kind, id: event.id }),
            end: () => {
              stream.end();
              resolve();
            },
          });
          stream.onClientGone(() => {
            stop();
            resolve();
          });
        }),
      );
    },
  );
}
