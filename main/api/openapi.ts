import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ErrorEnvelope } from '../contract/schemas.js';

const DESCRIPTION = `Your logged-in chat accounts as a local, durable API. Every error has the envelope
\`ErrorEnvelope\`; \`error.code\` is the contract, \`error.message\` is for people. Errors carry
\`x-should-retry\`: \`true\` only where repeating the same request can give another answer.`;

/**
 * The OpenAPI 3.1 document of the public API (/v1), built by @fastify/swagger from the
 * same TypeBox schemas the routes validate with, so it cannot drift from what the server
 * enforces. Register it before the routes: it collects them as they are added. The
 * dashboard's own API (/admin/v1) is left out: it is the dashboard's, not a contract for
 * scripts, and its token never leaves this machine. The title names the running profile,
 * whose shapes and ranges the routes' schemas carry.
 */
export function registerOpenApi(app: FastifyInstance, version: string, title: string): void {
  void app.register(swagger, {
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
}

/** GET /v1/openapi.json: the document, for whoever asks (it needs no key). */
export async function openApiRoute(app: FastifyInstance): Promise<void> {
  app.get(
    '/v1/openapi.json',
    { schema: { summary: 'This document (OpenAPI 3.1); needs no key', response: { 200: { type: 'object', additionalProperties: true } } } },
    async () => app.swagger(),
  );
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
