import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdminConsole } from '../../service/admin-console.js';
import type { AdminToken } from '../../keys/admin-token.js';
import type { LogLevel } from '../../logs/log-book.js';
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
  AccountView,
  SettingsPatch,
  SigningSecretView,
  WebhookLog,
} from '../admin-schemas.js';
import { LogList, LogsQuery, UsageQuery, UsageView } from '../admin-schemas.js';
import { AgentCreate, ViewInput } from '../admin-schemas.js';
import { DiagnosticFileParams, SiteCheckRequest, SiteCheckView } from '../admin-schemas.js';
import type { RouteAccess } from '../auth.js';
import { ErrorEnvelope } from '../schemas.js';

const admin: RouteAccess = { admin: true };
/** Keeps proxies and idle timeouts from closing a quiet event stream. */
const HEARTBEAT_MS = 25_000;

/** The dashboard's API: the admin token only, same envelope and Host rules as /v1. */
export function adminRoutes(app: FastifyInstance, console: AdminConsole, adminToken: AdminToken): void {
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

  app.post<{ Body: AgentCreate }>(
    '/admin/v1/agents',
    {
      config: admin,
      schema: schema("Add an account: a new agent, its browser, and a login in its page", {
        body: AgentCreate,
        response: { 201: AgentView, default: ErrorEnvelope },
      }),
    },
    async (request, reply) => reply.code(201).send(await console.addAgent(request.body)),
  );

  app.delete<{ Params: { id: string } }>(
    '/admin/v1/agents/:id',
    { config: admin, schema: schema('Remove an agent and its login', { params: IdParams, response: { 204: Type.Null(), default: ErrorEnvelope } }) },
    async (request, reply) => {
      await console.removeAgent(request.params.id);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string } }>(
    '/admin/v1/agents/:id/login',
    { config: admin, schema: schema('Show the login page in the agent’s page (again: check now)', { params: IdParams, response: ok(AgentView) }) },
    async (request) => console.logIn(request.params.id),
  );

  app.post<{ Params: { id: string } }>(
    '/admin/v1/agents/:id/check',
    { config: admin, schema: schema('Check now: the agent looks at its page again at once (a changed site, a challenge, a usage limit; during a login: "I have logged in"); answers its state', { params: IdParams, response: ok(AgentView) }) },
    async (request) => console.checkAgent(request.params.id),
  );

  app.delete<{ Params: { id: string } }>(
    '/admin/v1/agents/:id/login',
    { config: admin, schema: schema('Close a login', { params: IdParams, response: ok(AgentView) }) },
    async (request) => console.endLogIn(request.params.id),
  );

  app.post<{ Params: { id: string }; Body: SiteCheckRequest | undefined }>(
    '/admin/v1/agents/:id/check-site',
    {
      config: admin,
      schema: schema("Which cue finds each role of the agent's selector pack on a fresh chat; with send, also on a probe prompt's answer (409 while it runs a job)", {
        params: IdParams,
        body: SiteCheckRequest,
        response: ok(SiteCheckView),
      }),
    },
    async (request) => console.checkSite(request.params.id, request.body?.send ?? false),
  );

  app.post<{ Params: { id: string }; Body: ViewInput }>(
    '/admin/v1/agents/:id/screen/input',
    {
      config: admin,
      schema: schema('A click, wheel, key or text for the agent’s page, during a login', {
        params: IdParams,
        body: ViewInput,
        response: { 204: Type.Null(), default: ErrorEnvelope },
      }),
    },
    async (request, reply) => {
      await console.input(request.params.id, request.body);
      return reply.code(204).send();
    },
  );

  app.get(
    '/admin/v1/accounts',
    { config: admin, schema: schema('(hosted) Accounts: queue depth, usage this hour and today, keys, retention', { response: ok(Type.Array(AccountView)) }) },
    async () => console.accounts(),
  );

  app.get('/admin/v1/keys', { config: admin, schema: schema('API keys', { response: ok(Type.Array(KeyView)) }) }, async () => console.keys());

  app.post<{ Body: KeyCreate }>(
    '/admin/v1/keys',
    { config: admin, schema: schema('Create an API key (its secret is shown once)', { body: KeyCreate, response: { 201: KeyCreated, default: ErrorEnvelope } }) },
    async (request, reply) => reply.code(201).send(await console.createKey(request.body)),
  );

  app.delete<{ Params: { id: string } }>(
    '/admin/v1/keys/:id',
    { config: admin, schema: schema('Revoke an API key', { params: IdParams, response: ok(KeyView) }) },
    async (request) => console.revokeKey(request.params.id),
  );

  app.get<{ Querystring: { limit?: string } }>(
    '/admin/v1/jobs',
    { config: admin, schema: schema('Recent jobs, newest first', { querystring: JobsQuery, response: ok(JobList) }) },
    async (request) => ({ jobs: await console.recentJobs(Number(request.query.limit ?? 50)) }),
  );

  app.get<{ Params: { id: string } }>(
    '/admin/v1/jobs/:id',
    { config: admin, schema: schema('A job with its prompt, attempts and webhook', { params: IdParams, response: ok(JobDetail) }) },
    async (request) => console.job(request.params.id),
  );

  app.get<{ Params: { bundle: string; file: string } }>(
    '/admin/v1/diagnostics/:bundle/:file',
    {
      config: admin,
      schema: schema("One file of a failed attempt's diagnostic bundle (screenshot.png, page.html or failure.json), as a download", {
        params: DiagnosticFileParams,
      }),
    },
    async (request, reply) => {
      const { bundle, file } = request.params;
      const { data, contentType } = await console.diagnosticFile(bundle, file);
      return reply
        .header('content-type', contentType)
        .header('content-disposition', `attachment; filename="${bundle}-${file}"`)
        .header('cache-control', 'no-store')
        .send(data);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/admin/v1/jobs/:id',
    {
      config: admin,
      schema: schema('Delete a finished job, its attempts and webhook log (409 while queued or running: cancel it first)', {
        params: IdParams,
        response: { 204: Type.Null(), default: ErrorEnvelope },
      }),
    },
    async (request, reply) => {
      await console.deleteJob(request.params.id);
      return reply.code(204).send();
    },
  );

  app.get<{ Querystring: UsageQuery }>(
    '/admin/v1/usage',
    { config: admin, schema: schema('Usage history: jobs, failures and timings per hour (per day over 90 days)', { querystring: UsageQuery, response: ok(UsageView) }) },
    async (request) => {
      const { range = '24h', key, agent, tz_offset } = request.query;
      return console.usage(range, { ...(key ? { keyId: key } : {}), ...(agent ? { agentId: agent } : {}) }, Number(tz_offset ?? 0));
    },
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

  app.get<{ Querystring: { limit?: string; level?: LogLevel } }>(
    '/admin/v1/logs',
    { config: admin, schema: schema('Recent log entries, oldest first', { querystring: LogsQuery, response: ok(LogList) }) },
    async (request) => ({ entries: console.logs(Number(request.query.limit ?? 200), request.query.level) }),
  );

  app.get('/admin/v1/webhooks/secret', { config: admin, schema: schema('The signing secret', { response: ok(SigningSecretView) }) }, async () => ({
    secret: console.signingSecret(),
  }));

  app.post(
    '/admin/v1/webhooks/secret/rotate',
    { config: admin, schema: schema('Replace the signing secret', { response: ok(SigningSecretView) }) },
    async () => ({ secret: await console.rotateSigningSecret() }),
  );

  // Open event streams end when the server closes, so shutdown does not wait on them.
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });
  // They were opened with the old token: the dashboard reconnects, gets 401 and asks for the new link.
  adminToken.onRotate(() => {
    for (const end of [...streams]) end();
  });
  /** Answers with server-sent events; `start` begins sending (`end` closes the stream) and returns what stops it. */
  const eventStream = (
    request: FastifyRequest,
    reply: FastifyReply,
    start: (send: (event: string, data: unknown) => void, end: () => void) => () => void,
  ) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-request-id': String(request.id),
      connection: 'keep-alive',
    });
    // The client knows the stream is open before the first event (a page's first frame may take a while).
    res.flushHeaders();
    let stop: (() => void) | null = null;
    let ended = false;
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    const end = () => {
      if (ended) return;
      ended = true;
      streams.delete(end);
      stop?.();
      clearInterval(heartbeat);
      res.end();
    };
    streams.add(end);
    res.on('close', end);
    // What is read asynchronously (the state) may come after the stream ended: it is dropped.
    stop = start((event, data) => {
      if (!ended) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    }, end);
    // `start` may have ended the stream at once (a page already gone): stop what it began.
    if (ended) stop();
  };

  // `state` at once and after every change, `job` for each job change, `log` for each new
  // log entry, `job_deleted` ({ id }) for each job deleted.
  app.get('/admin/v1/events', { config: admin, schema: schema('Live updates (text/event-stream)', {}) }, (request, reply) => {
    eventStream(request, reply, (send) => {
      void console.state().then((state) => send('state', state));
      return console.watch(
        (state) => send('state', state),
        (job) => send('job', job),
        (entry) => send('log', entry),
        (id) => send('job_deleted', { id }),
      );
    });
  });

  // `frame` events: pictures of the agent's page as it changes (the latest one at once). The
  // stream ends with the page (a browser restart); the dashboard reconnects to the new one.
  app.get<{ Params: { id: string } }>(
    '/admin/v1/agents/:id/screen',
    { config: admin, schema: schema("The agent's page, live (text/event-stream of `frame` events)", { params: IdParams }) },
    (request, reply) => {
      const screen = console.screen(request.params.id);
      eventStream(request, reply, (send, end) =>
        screen.watch((frame) => {
          // A viewer that cannot keep up misses frames rather than piling them up here.
          if (!reply.raw.writableNeedDrain) send('frame', frame);
        }, end),
      );
    },
  );
}
