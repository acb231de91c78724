import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { CSP, isDashboardUrl } from './security.js';

/** The service's HTTP API, reached in-process (fastify's inject): no socket between the app and its own window. */
export type Inject = (request: {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: Buffer;
}) => Promise<{ statusCode: number; headers: Record<string, unknown>; rawPayload: Buffer }>;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** Paths the service answers; everything else is a file of the built dashboard. */
const API = /^\/(admin\/v1|v1)(\/|$)/;

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>ChatBridge</title>
<p>The dashboard is not built. Run <code>npm run build</code>; the service is running meanwhile.</p>`;

/**
 * Answers `app://dashboard/...` for the dashboard window: the built renderer's files with a
 * CSP, and the admin API by handing the request to the service in-process, so the page
 * talks to its own origin only (`connect-src 'self'`). The page's own Authorization header
 * (the admin token) goes along; nothing is added to it.
 */
export function dashboardHandler(rendererDir: string, inject: Inject): (request: Request) => Promise<Response> {
  return async (request) => {
    if (!isDashboardUrl(request.url)) return new Response('Not found', { status: 404 });
    const url = new URL(request.url);
    if (API.test(url.pathname)) return forward(request, url, inject);
    if (request.method !== 'GET') return new Response('Method not allowed', { status: 405 });
    return serveFile(rendererDir, url.pathname);
  };
}

async function forward(request: Request, url: URL, inject: Inject): Promise<Response> {
  const headers: Record<string, string> = { host: '127.0.0.1' };
  for (const name of ['authorization', 'content-type', 'accept', 'idempotency-key']) {
    const value = request.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : Buffer.from(await request.arrayBuffer());
  const answer = await inject({ method: request.method, url: url.pathname + url.search, headers, ...(body ? { payload: body } : {}) });
  const out = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (typeof value === 'string' || typeof value === 'number') out.set(name, String(value));
  }
  const empty = answer.statusCode === 204 || answer.statusCode === 304;
  return new Response(empty ? null : new Uint8Array(answer.rawPayload), { status: answer.statusCode, headers: out });
}

async function serveFile(rendererDir: string, pathname: string): Promise<Response> {
  // A client-side route (no extension) gets the app's index.html.
  const relative = extname(pathname) ? decodeURIComponent(pathname) : '/index.html';
  const file = normalize(join(rendererDir, relative));
  if (!file.startsWith(normalize(rendererDir) + sep)) return new Response('Not found', { status: 404 });
  const type = TYPES[extname(file)] ?? 'application/octet-stream';
  const headers = { 'content-type': type, 'content-security-policy': CSP, 'x-content-type-options': 'nosniff' };
  try {
    return new Response(new Uint8Array(await readFile(file)), { headers });
  } catch {
    if (relative === '/index.html') return new Response(NOT_BUILT, { headers: { ...headers, 'content-type': TYPES['.html']! } });
    return new Response('Not found', { status: 404 });
  }
}
