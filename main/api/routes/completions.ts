import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Completions } from '../../completions.js';
import type { JobRow } from '../../queue/job-store.js';
import { acceptedBody, jobObject } from '../profile.js';
import {
  Accepted,
  CompletionRequest,
  ErrorEnvelope,
  IdempotencyHeaders,
  Job,
  JobParams,
  WaitQuery,
} from '../schemas.js';
import type { RouteAccess } from '../auth.js';

const write: RouteAccess = { scope: 'completions:write', budget: 'write' };
const read: RouteAccess = { scope: 'completions:read', budget: 'read' };

/** Aborts when the client goes away before its answer was sent. */
export function clientGone(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  request.raw.once('aborted', () => controller.abort());
  return controller.signal;
}

export function completionRoutes(app: FastifyInstance, completions: Completions): void {
  const present = (job: JobRow) => jobObject(job, completions.agentName(job), completions.queuePosition(job));

  app.post<{ Body: CompletionRequest; Headers: { 'idempotency-key'?: string } }>(
    '/v1/completions',
    {
      config: write,
      schema: {
        summary: 'Submit a job',
        headers: IdempotencyHeaders,
        body: CompletionRequest,
        response: { 200: Job, 202: Accepted, default: ErrorEnvelope },
      },
    },
    async (request, reply) => {
      const { job, created } = await completions.submit({
        body: request.body,
        idempotencyKey: request.headers['idempotency-key'],
        path: '/v1/completions',
        rawBody: request.body as unknown as Record<string, unknown>,
        apiKeyId: request.keyId,
      });
      if (!request.body.wait) {
        return created ? reply.code(202).send(acceptedBody(job)) : present(job);
      }
      const settled = await completions.waitFor(job, completions.holdFor(job), clientGone(request, reply));
      return present(completions.outcome(settled));
    },
  );

  app.get<{ Params: { id: string }; Querystring: { wait?: 'true' | 'false' } }>(
    '/v1/completions/:id',
    {
      config: read,
      schema: {
        summary: 'Read a job; wait=true holds until it is final',
        params: JobParams,
        querystring: WaitQuery,
        response: { 200: Job, default: ErrorEnvelope },
      },
    },
    async (request, reply) => {
      let job = completions.get(request.params.id);
      if (request.query.wait === 'true') {
        job = await completions.waitFor(job, completions.holdFor(job), clientGone(request, reply));
      }
      return present(job);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/completions/:id',
    {
      config: write,
      schema: { summary: 'Cancel a job', params: JobParams, response: { 200: Job, default: ErrorEnvelope } },
    },
    async (request) => present(completions.cancel(request.params.id)),
  );
}
