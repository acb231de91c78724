import type { FastifyInstance } from 'fastify';
import { ErrorEnvelope } from '../../contract/schemas.js';
import { AgentCreate, AgentPatch, AgentView, SiteCheckRequest, SiteCheckView } from '../../contract/admin/agents.js';
import { IdParams, NO_CONTENT, ok } from '../../contract/admin/shared.js';

/** What these routes ask of the application layer (main/service/admin/agents.ts). */
export interface AgentsPort {
  update(id: string, patch: AgentPatch): AgentView;
  add(input: AgentCreate): Promise<AgentView>;
  remove(id: string): Promise<void>;
  logIn(id: string): Promise<AgentView>;
  check(id: string): Promise<AgentView>;
  endLogIn(id: string): AgentView;
  checkSite(id: string, send: boolean): Promise<SiteCheckView>;
}

/** /admin/v1/agents: add, change and remove agents, log them in, check them and their sites. */
export async function agentRoutes(app: FastifyInstance, { agents }: { agents: AgentsPort }): Promise<void> {
  app.patch<{ Params: { id: string }; Body: AgentPatch }>(
    '/agents/:id',
    { schema: { summary: 'Rename, enable or cap an agent', params: IdParams, body: AgentPatch, response: ok(AgentView) } },
    async (request) => agents.update(request.params.id, request.body),
  );

  app.post<{ Body: AgentCreate }>(
    '/agents',
    {
      schema: {
        summary: "Add an account: a new agent, its browser, and a login in its page",
        body: AgentCreate,
        response: { 201: AgentView, default: ErrorEnvelope },
      },
    },
    async (request, reply) => reply.code(201).send(await agents.add(request.body)),
  );

  app.delete<{ Params: { id: string } }>(
    '/agents/:id',
    { schema: { summary: 'Remove an agent and its login', params: IdParams, response: NO_CONTENT } },
    async (request, reply) => {
      await agents.remove(request.params.id);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string } }>(
    '/agents/:id/login',
    { schema: { summary: 'Show the login page in the agent’s page (again: check now)', params: IdParams, response: ok(AgentView) } },
    async (request) => agents.logIn(request.params.id),
  );

  app.post<{ Params: { id: string } }>(
    '/agents/:id/check',
    {
      schema: {
        summary:
          'Check now: the agent looks at its page again at once (a changed site, a challenge, a usage limit; during a login: "I have logged in"); answers its state',
        params: IdParams,
        response: ok(AgentView),
      },
    },
    async (request) => agents.check(request.params.id),
  );

  app.delete<{ Params: { id: string } }>(
    '/agents/:id/login',
    { schema: { summary: 'Close a login', params: IdParams, response: ok(AgentView) } },
    async (request) => agents.endLogIn(request.params.id),
  );

  app.post<{ Params: { id: string }; Body: SiteCheckRequest | undefined }>(
    '/agents/:id/check-site',
    {
      schema: {
        summary: "Which cue finds each role of the agent's selector pack on a fresh chat; with send, also on a probe prompt's answer (409 while it runs a job)",
        params: IdParams,
        body: SiteCheckRequest,
        response: ok(SiteCheckView),
      },
    },
    async (request) => agents.checkSite(request.params.id, request.body?.send ?? false),
  );
}
