import type { FastifyInstance } from 'fastify';
import { ErrorEnvelope } from './schemas.js';

declare module 'fastify' {
  interface FastifySchema {
    /** A one-line description of the route, for the OpenAPI document. */
    summary?: string;
  }
}

interface RouteSchema {
  summary?: string;
  body?: object;
  params?: { properties?: Record<string, object> };
  querystring?: { properties?: Record<string, object> };
  headers?: { properties?: Record<string, object> };
  response?: Record<string, object>;
}

/**
 * Builds the OpenAPI 3.0 document from the schemas the routes validate with, collected as
 * routes register, so the document cannot drift from what the server enforces.
 */
export function collectOpenApi(app: FastifyInstance, version: string): () => object {
  const paths: Record<string, Record<string, object>> = {};
  app.addHook('onRoute', (route) => {
    const schema = route.schema as RouteSchema | undefined;
    if (!schema || !route.url.startsWith('/v1/')) return;
    const path = route.url.replace(/:(\w+)/g, '{$1}');
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
    const parameters = [
      ...paramsOf(schema.params, 'path'),
      ...paramsOf(schema.querystring, 'query'),
      ...paramsOf(schema.headers, 'header'),
    ];
    const responses = Object.fromEntries(
      Object.entries(schema.response ?? {}).map(([status, body]) => [
        status,
        { description: status === 'default' ? 'Error' : 'Success', content: { 'application/json': { schema: plain(body) } } },
      ]),
    );
    const security = (route.config as { scope?: string } | undefined)?.scope ? [{ bearer: [] }] : [];
    for (const method of methods) {
      (paths[path] ??= {})[method.toLowerCase()] = {
        summary: schema.summary,
        security,
        ...(parameters.length ? { parameters } : {}),
        ...(schema.body ? { requestBody: { required: true, content: { 'application/json': { schema: plain(schema.body) } } } } : {}),
        responses,
      };
    }
  });
  return () => ({
    openapi: '3.0.3',
    info: { title: 'ChatBridge — Prompt Completion Service (Profile F)', version },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'cb_… API key' } },
      schemas: { ErrorEnvelope: plain(ErrorEnvelope) },
    },
    paths,
  });
}

function paramsOf(schema: RouteSchema['params'], where: 'path' | 'query' | 'header'): object[] {
  const required = new Set((schema as { required?: string[] } | undefined)?.required ?? []);
  return Object.entries(schema?.properties ?? {}).map(([name, s]) => ({
    name: where === 'header' ? name.replace(/(^|-)(\w)/g, (_, d: string, c: string) => d + c.toUpperCase()) : name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: plain(s),
  }));
}

/** The schema as JSON: TypeBox's symbol-keyed bookkeeping does not survive, as intended. */
function plain(schema: object): object {
  return JSON.parse(JSON.stringify(schema)) as object;
}
