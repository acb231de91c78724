import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AdminConsole } from '../../admin-console.js';
import {
  AdminState,
  AgentPatch,
  AgentView,
  IdParams,
  JobDetail,
  JobList,
  JobsQuery,
  KeyCreate,
  KeyCreated,
  KeyView,
  SettingsPatch,
  SigningSecretView,
  WebhookLog,
} from '../admin-schemas.js';
import type { RouteAccess } from '../auth.js';
import { ErrorEnvelope } from '../schemas.js';

const admin: RouteAccess = { admin: true };
/** Keeps proxies and idle timeouts from closing a quiet event stream. */
const HEARTBEAT_MS = 25_000;

/** The dashboard's API: the admin token only, same envelope and Host rules as /v1. */
export function adminRoutes(app: FastifyInstance, console: AdminConsole): void {
  const schema = <T extends object>(summary: string, extra: T) => ({ summary, ...extra });
  const ok = (body: object) => ({ 200: body, default: ErrorEnvelope });

  app.get('/admin/v1/state', { config: admin, schema: schema('Agents, settings and status', { response: ok(AdminState) }) }, async () =>
    console.state(),
  );

  app.patch<{ Body: SettingsPatch }>(
    '/admin/v1/settings',
    { config: admin, schema: schema('Caps, rotation, pause', { body: SettingsPatch, response: ok(AdminState) }) },
    async (request) => console.updateSettings(request.body),
  );

  app.patch<{ Params: { id: string }; Body: AgentPatch }>(
    '/admin/v1/agents/:id',
    { config: admin, schema: schema('Rename, enable or cap an agent', { params: IdParams, body: AgentPatch, response: ok(AgentView) }) },
    async (request) => console.updateAgent(request.params.id, request.body),
  );

  app.get('/admin/v1/keys', { config: admin, schema: schema('API keys', { response: ok(Type.Array(KeyView)) }) }, async () => console.keys());

  app.post<{ Body: KeyCreate }>(
    '/admin/v1/keys',
    { config: admin, schema: schema('Create an API key (its secret is shown once)', { body: KeyCreate, response: { 201: KeyCreated, default: ErrorEnvelope } }) },
    async (request, reply) => reply.code(201).send(console.createKey(request.body)),
  );

  app.delete<{ Params: { id: string } }>(
    '/admin/v1/keys/:id',
    { config: admin, schema: schema('Revoke an API key', { params: IdParams, response: ok(KeyView) }) },
    async (request) => console.revokeKey(request.params.id),
  );

  app.get<{ Querystring: { limit?: string } }>(
    '/admin/v1/jobs',
    { config: admin, schema: schema('Recent jobs, newest first', { querystring: JobsQuery, response: ok(JobList) }) },
    async (request) => ({ jobs: console.recentJobs(Number(request.query.limit ?? 50)) }),
  );

  app.get<{ Params: { id: string } }>(
    '/admin/v1/jobs/:id',
    { config: admin, schema: schema('A job with its prompt, attempts and webhook', { params: IdParams, response: ok(JobDetail) }) },
    async (request) => console.job(request.params.id),
  );

  app.post<{ Params: { id: string } }>(
    '/admin/v1/jobs/:id/cancel',
    { config: admin, schema: schema('Cancel a job (a waiting caller gets 499)', { params: IdParams, response: ok(JobDetail) }) },
    async (request) => console.cancel(request.params.id),
  );

  app.post<{ Params: { id: string } }>(
    '/admin/v1/jobs/:id/webhook/redeliver',
    { config: admin, schema: schema("Send a finished job's webhook again", { params: IdParams, response: ok(WebhookLog) }) },
    async (request) => console.redeliver(request.params.id),
  );

  app.get('/admin/v1/webhooks/secret', { config: admin, schema: schema('The signing secret', { response: ok(SigningSecretView) }) }, async () => ({
    secret: console.signingSecret(),
  }));

  app.post(
    '/admin/v1/webhooks/secret/rotate',
    { config: admin, schema: schema('Replace the signing secret', { response: ok(SigningSecretView) }) },
    async () => ({ secret: console.rotateSigningSecret() }),
  );

  // Server-sent events: `state` at once and after every change, `job` for each job change.
  // Open streams end when the server closes, so shutdown does not wait on them.
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });
  app.get('/admin/v1/events', { config: admin, schema: schema('Live updates (text/event-stream)', {}) }, (request, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-request-id': String(request.id),
      connection: 'keep-alive',
    });
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    send('state', console.state());
    const stop = console.watch(
      (state) => send('state', state),
      (job) => send('job', job),
    );
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    const end = () => {
      streams.delete(end);
      stop();
      clearInterval(heartbeat);
      res.end();
    };
    streams.add(end);
    res.on('close', end);
  });
}
