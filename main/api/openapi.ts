import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { ErrorEnvelope } from '../contract/schemas.js';
import { SHARED_COMPILERS } from './schema-compilers.js';

const DESCRIPTION = `Your logged-in chat accounts as a local, durable API. Every error has the envelope
\`ErrorEnvelope\`; \`error.code\` is the contract, \`error.message\` is for people. Errors carry
\`x-should-retry\`: \`true\` only where repeating the same request can give another answer.`;

/** The routes of a server as they were added, for its OpenAPI document. */
export type RouteBook = RouteOptions[];

/**
 * Notes each route `app` is given from now on. Call it before the routes are added: their
 * order is the document's.
 */
export function noteRoutes(app: FastifyInstance): RouteBook {
  const routes: RouteBook = [];
  app.addHook('onRoute', (route) => void routes.push(route));
  return routes;
}

/**
 * GET /v1/openapi.json: the OpenAPI 3.1 document of the public API (/v1), for whoever asks
 * (it needs no key). @fastify/swagger builds it from the same TypeBox schemas the routes
 * validate with, so it cannot drift from what the server enforces. It is built at the first
 * request, on a fastify instance of its own given the same routes: the plugin and the YAML
 * parser it loads were some 40 ms of every start of the service, for a document few ask for.
 * The dashboard's own API (/admin/v1) is left out: it is the dashboard's, not a contract for
 * scripts, and its token never leaves this machine. The title names the running profile,
 * whose shapes and ranges the routes' schemas carry.
 */
export async function openApiRoute(app: FastifyInstance, { routes, version, title }: { routes: RouteBook; version: string; title: string }): Promise<void> {
  let document: Promise<unknown> | null = null;
  app.get(
    '/v1/openapi.json',
    { schema: { summary: 'This document (OpenAPI 3.1); needs no key', response: { 200: { type: 'object', additionalProperties: true } } } },
    async () => {
      document ??= buildDocument(routes, version, title);
      document.catch(() => (document = null));
      return document;
    },
  );
}

async function buildDocument(routes: RouteBook, version: string, title: string): Promise<unknown> {
  const { default: swagger } = await import('@fastify/swagger');
  // The server's own compilers, which compile nothing until a request needs it; its routes
  // are given here as noted, HEAD ones among them, so none is made twice.
  const builder = Fastify({ logger: false, exposeHeadRoutes: false, schemaController: SHARED_COMPILERS });
  await builder.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title, version, description: DESCRIPTION },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key, cb_…' } },
        schemas: { ErrorEnvelope: plain(ErrorEnvelope) },
      },
    },
    transform: ({ schema, url, route }) => {
      const shown = url.startsWith('/v1/');
      const json = schema?.body ? withOptionalDefaults(plain(schema.body)) : undefined;
      // A route that also takes multipart/form-data (POST /v1/completions) shows both forms.
      const multipart = route.config?.multipartBody;
      const body = json
        ? { body: multipart ? { content: { 'application/json': { schema: json }, 'multipart/form-data': { schema: multipart } } } : json }
        : {};
      return { url, schema: { ...schema, ...body, hide: !shown, security: route.config?.scope ? [{ bearer: [] }] : [] } };
    },
  });
  for (const { method, url, schema, config } of routes) builder.route({ method, url, schema, config, handler: async () => null });
  await builder.ready();
  try {
    return builder.swagger();
  } finally {
    await builder.close();
  }
}

/**
 * A request field with a default may be left out: the server fills it in before it checks
 * `required` (Ajv's useDefaults), which TypeBox's types express by listing it as required.
 * The document says what a caller must send.
 */
function withOptionalDefaults(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  if (!Array.isArray(schema.required)) return schema;
  const required = (schema.required as string[]).filter((name) => !(properties[name] && 'default' in properties[name]));
  return { ...schema, required };
}

/** The schema as JSON: TypeBox's symbol-keyed bookkeeping does not belong in the document. */
function plain(schema: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
