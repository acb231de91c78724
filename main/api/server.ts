import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import type { Clock } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import type { IdGenerator } from '../core/ids.js';
import type { KeyStore } from '../keys/key-store.js';
import type { Profile } from '../contract/profile.js';
import type { CompletionsPort } from '../contract/completions-port.js';
import { HoldLimits } from './holds.js';
import { isAllowedHost, makeAuthenticator, type RouteAccess } from './auth.js';
import { envelope, handleError, sendError } from './error-handling.js';
import { registerJsonBodyParser } from './json-body.js';
import { noteRoutes, openApiRoute } from './openapi.js';
import { MemoryRateLimiter, type RequestLimits } from '../keys/rate-limit.js';
import { accountRoutes, type StatusPort } from './routes/account.js';
import type { AccountSecrets } from '../webhooks/account-secrets.js';
import { adminApi, type AdminPorts } from './admin/index.js';
import { operationRoutes, type OperationsDeps } from './routes/operations.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { chatCompletionRoutes } from './routes/chat-completions.js';
import { completionRoutes } from './routes/completions.js';
import { completionEventRoutes } from './routes/completion-events.js';
import { KEEP_ALIVE_MS } from './sse.js';
import { LIMITS } from '../core/limits.js';
import { SHARED_COMPILERS } from './schema-compilers.js';

export interface ServerDeps extends OperationsDeps {
  completions: CompletionsPort;
  /** The dashboard's consoles, one per resource of /admin/v1. */
  admin: AdminPorts;
  report: StatusPort;
  /** (H) The accounts' webhook signing secrets, each shown to its own account's keys. */
  accountSecrets: AccountSecrets;
  keys: KeyStore;
  /** What differs between Profile F and Profile H: the routes' shapes and ranges come from it. */
  profile: Profile;
  clock: Clock;
  ids: IdGenerator;
  version: string;
  connections?: ConnectionLimits;
  /** The per-key request budgets; in memory unless given (several instances share theirs through PostgreSQL). */
  limits?: RequestLimits;
  /** How often a quiet event stream gets a keep-alive comment (tests shorten it). */
  keepAliveMs?: number;
}

/** How long a client may take to send its request, and how many connections may be open. */
export interface ConnectionLimits {
  /** To receive the request line and headers. */
  headersMs: number;
  /** To receive the whole request, body included (a response held open is not counted). */
  requestMs: number;
  /** How often Node looks for requests over those times. */
  checkEveryMs: number;
  /** Connections over this are closed as they arrive. */
  maxConnections: number;
  /** Requests one key may hold open waiting for jobs to end (see HoldLimits). */
  holdsPerKey: number;
  /** Requests the keys of one account (hosted) may hold open together. */
  holdsPerAccount: number;
  /** Requests one client address may hold open, whatever keys it uses. */
  holdsPerAddress: number;
}

/**
 * A local client sends a 1 MiB body in milliseconds: 30 s is for a busy machine, not for a
 * slow sender that would keep a connection forever. The cap is five times the 2 000
 * concurrent long polls the benchmark holds, and well under common descriptor limits raised
 * for servers.
 *
 * Holds: an account may queue 1 000 jobs (LIMITS.queuedJobs), so 1 000 holds let it wait on
 * every one of them, and are a tenth of the connections: ten accounts at their cap still
 * leave none of them without room. One key gets half that: a script waits on as many jobs
 * as it has agents to run them, tens, and 500 concurrent holds of one key are what the
 * service is tested with; a runaway key leaves its account's other keys room. One client
 * address gets what one key does, whatever keys (of whatever accounts) it holds with: a
 * client cannot take more of the connections by making keys or accounts.
 */
export const CONNECTION_LIMITS: ConnectionLimits = {
  headersMs: 10_000,
  requestMs: 30_000,
  checkEveryMs: 1_000,
  maxConnections: 10_000,
  holdsPerKey: 500,
  holdsPerAccount: 1_000,
  holdsPerAddress: 500,
};

/** The localhost HTTP API: every route of api.md, each error in the contract's envelope. */
export function buildServer(deps: ServerDeps): FastifyInstance {
  const limits = deps.connections ?? CONNECTION_LIMITS;
  const app = Fastify({
    logger: false,
    bodyLimit: LIMITS.bodyBytes,
    genReqId: () => deps.ids.request(),
    requestIdHeader: false,
    // Long job ids get the schema's 400 on `id`, not the router's "URL malformed".
    routerOptions: { maxParamLength: 1_000 },
    // A client's address (request.ip, which holds are counted by) is the peer's, or, from a
    // proxy on this machine (the TLS proxy a remote API sits behind), the one its
    // X-Forwarded-For names: a peer elsewhere cannot pass for another address.
    trustProxy: 'loopback',
    // A request without Host reaches the Host check and gets its envelope.
    http: { requireHostHeader: false, headersTimeout: limits.headersMs, connectionsCheckingInterval: limits.checkEveryMs },
    requestTimeout: limits.requestMs,
    clientErrorHandler: (error, socket) => answerMalformedHttp(error, socket, deps.ids.request()),
    // At shutdown every hold is ended first; then idle keep-alive sockets are closed while
    // the last answers are written out.
    forceCloseConnections: 'idle',
    keepAliveTimeout: 65_000,
    schemaController: SHARED_COMPILERS,
    ajv: {
      // Bodies are typed strictly ("1" is not a number) and unknown fields are refused.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false },
    },
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', String(request.id));
      const message = error.code === 'FST_ERR_BAD_URL' ? 'The request URL is malformed.' : 'The request could not be read.';
      void sendError(reply, new ApiError('INVALID_REQUEST', message, { field: 'url' }));
    },
  });

  app.decorateRequest('keyId', '');
  app.decorateRequest('accountId', null);
  const inMemory = {
    read: new MemoryRateLimiter(deps.clock, LIMITS.readsPerMinute),
    write: new MemoryRateLimiter(deps.clock, LIMITS.writesPerMinute),
  };
  const authenticate = makeAuthenticator(deps.keys, deps.limits ?? inMemory, deps.adminToken, inMemory);
  /** Lets the request through as `access` asks, and records who called on it. */
  const signIn = async (request: FastifyRequest, access: RouteAccess) => {
    const caller = await authenticate(request, access);
    request.keyId = caller.keyId;
    request.accountId = caller.accountId;
  };
  app.server.maxConnections = limits.maxConnections;
  const holds = new HoldLimits(limits.holdsPerKey, limits.holdsPerAccount, limits.holdsPerAddress);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', String(request.id));
    if (!isAllowedHost(request.headers.host)) {
      throw new ApiError('FORBIDDEN', 'The Host header must be localhost or an IP address.', { field: 'host' });
    }
    const access = request.routeOptions.config as RouteAccess;
    if (access.scope) await signIn(request, access);
  });

  // Hijacked answers (event streams) are not counted: they have no status to end with. A
  // callback hook, not an async one: it runs after every answer and has nothing to await.
  app.addHook('onResponse', (request, reply, done) => {
    deps.metrics.request(request.method, request.routeOptions.url, reply.statusCode);
    done();
  });

  // Only JSON is accepted: fastify's default text/plain parser would let a cross-site form
  // post reach the routes.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  registerJsonBodyParser(app);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    void sendError(reply, new ApiError('NOT_FOUND', `There is no ${request.method} ${path}.`));
  });

  const routes = noteRoutes(app);
  // One plugin per resource, each with the ports it needs, registered once the routes are
  // noted for the OpenAPI document: this order is the document's.
  const { completions, profile, adminToken } = deps;
  void app.register(completionRoutes, { completions, profile, holds });
  void app.register(completionEventRoutes, { completions, profile, holds, keepAliveMs: deps.keepAliveMs ?? KEEP_ALIVE_MS });
  void app.register(chatCompletionRoutes, { completions, holds, keepAliveMs: deps.keepAliveMs ?? KEEP_ALIVE_MS });
  void app.register(accountRoutes, { report: deps.report, profile, secrets: deps.accountSecrets });
  void app.register(adminApi, { prefix: '/admin/v1', consoles: deps.admin, adminToken, signIn });
  void app.register(dashboardRoutes);
  void app.register(operationRoutes, { metrics: deps.metrics, adminToken, notReadyBecause: deps.notReadyBecause, baseUrl: deps.baseUrl });
  void app.register(openApiRoute, { routes, version: deps.version, title: deps.profile.title });
  return app;
}

/** How long a refused client has to read its answer before its socket is destroyed. */
const LINGER_MS = 2_000;

/** Malformed HTTP never reaches a route: answer it in the envelope too, then hang up. */
function answerMalformedHttp(error: NodeJS.ErrnoException, socket: Socket, requestId: string): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const tooSlow = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const body = JSON.stringify(
    envelope(
      tooLarge ? 'PAYLOAD_TOO_LARGE' : 'INVALID_REQUEST',
      tooLarge
        ? 'The request headers are too large.'
        : tooSlow
          ? 'The request was not received in time.'
          : 'The request is not valid HTTP.',
      requestId,
    ),
  );
  socket.end(
    `HTTP/1.1 ${tooLarge ? '413 Payload Too Large' : '400 Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
  // end() only half-closes: a client that never reads and keeps writing would hold the
  // socket (FIN-WAIT-2) for as long as it likes. A client that reads has the answer and has
  // hung up well within the linger; whoever has not is cut off.
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
