import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import type { AccountSecrets } from '../../webhooks/account-secrets.js';
import { SigningSecretView } from '../../contract/admin/webhooks.js';
import type { Profile } from '../../contract/profile.js';
import { ErrorEnvelope, ModelList, type Status } from '../../contract/schemas.js';
import type { Viewer } from '../../core/jobs.js';
import { CLI } from '../../core/cli-name.js';

const read = { scope: 'completions:read', budget: 'read' } as const;
/** An account's signing secret is for whoever holds its full key: the one that submits jobs and their callback_url. */
const secretRead = { scope: 'completions:write', budget: 'read' } as const;
const secretRotate = { scope: 'completions:write', budget: 'write' } as const;

/** What these routes ask of the application layer (main/service/status-report.ts). */
export interface StatusPort {
  /** The figures every caller may see, and `account`'s own queue. */
  status(account: Viewer): Promise<Status>;
  /** The models `account` may ask for (null: the personal profile's one account, or the operator). */
  models(account: string | null): ModelList;
}

export interface AccountRoutesOptions {
  report: StatusPort;
  profile: Profile;
  secrets: AccountSecrets;
}

/** GET /v1/status, GET /v1/models, and (H) the calling account's webhook signing secret. */
export async function accountRoutes(app: FastifyInstance, { report, profile, secrets }: AccountRoutesOptions): Promise<void> {
  app.get(
    '/v1/status',
    { config: read, schema: { summary: 'Capacity, queue and hourly usage', response: { 200: profile.schemas.status, default: ErrorEnvelope } } },
    async (request) => profile.statusBody(await report.status(request.accountId)),
  );
  app.get(
    '/v1/models',
    { config: read, schema: { summary: 'Models enabled now (OpenAI list shape)', response: { 200: ModelList, default: ErrorEnvelope } } },
    async (request) => report.models(request.accountId),
  );
  // (F) The install is one account, whose secret is the service's: no key has an account.
  if (!profile.accounts) return;
  app.get(
    '/v1/webhooks/secret',
    { config: secretRead, schema: { summary: "(H) Your account's webhook signing secret", response: { 200: SigningSecretView, default: ErrorEnvelope } } },
    async (request) => ({ secret: await secrets.of(callerAccount(request)) }),
  );
  app.post(
    '/v1/webhooks/secret/rotate',
    { config: secretRotate, schema: { summary: "(H) Replace your account's webhook signing secret", response: { 200: SigningSecretView, default: ErrorEnvelope } } },
    async (request) => ({ secret: await secrets.rotate(callerAccount(request)) }),
  );
}

/**
 * The account whose secret the caller may see: its key's, and only that one (no route takes
 * an account id). The admin token and the operator's metrics key have none: the operator's
 * secret is the service's, shown in the dashboard and by `chatbridge webhooks secret`.
 */
function callerAccount(request: FastifyRequest): string {
  if (request.accountId === null) {
    throw new ApiError(
      'FORBIDDEN',
      `Only an account's own key sees that account's signing secret; the service's secret is in the dashboard (or ${CLI} webhooks secret).`,
    );
  }
  return request.accountId;
}
