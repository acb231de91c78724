import type { FastifyInstance } from 'fastify';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { PACKAGE_ROOT } from '../../core/package-root.js';

/** Where `vite build` puts the dashboard. */
const DASHBOARD_DIR = join(PACKAGE_ROOT, 'dist', 'renderer');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/**
 * The dashboard's files, for the browser in headless mode (the desktop app serves the same
 * files from its own protocol). No key is needed for the files: the page gets the admin
 * token from the link `serve` prints and sends it with every API call.
 */
export async function dashboardRoutes(app: FastifyInstance): Promise<void> {
  const headers = {
    // `blob:` images: a diagnostic screenshot is fetched with the token, then shown from an object URL.
    'content-security-policy':
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };

  const send = async (file: string, reply: import('fastify').FastifyReply) => {
    const path = normalize(join(DASHBOARD_DIR, file));
    if (!path.startsWith(DASHBOARD_DIR)) return reply.code(404).send();
    try {
      const body = await readFile(path);
      return reply
        .headers(headers)
        .header('content-type', TYPES[extname(path)] ?? 'application/octet-stream')
        .header('cache-control', file.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache')
        .send(body);
    } catch {
      return null;
    }
  };

  app.get('/', async (_request, reply) => {
    const sent = await send('index.html', reply);
    if (sent) return sent;
    return reply
      .code(503)
      .headers(headers)
      .type('text/html; charset=utf-8')
      .send('<!doctype html><title>ChatBridge</title><p>The dashboard is not built yet: run <code>npm run build</code>.</p>');
  });

  app.get<{ Params: { '*': string } }>('/assets/*', async (request, reply) => {
    const sent = await send(`assets/${request.params['*']}`, reply);
    return sent ?? reply.callNotFound();
  });
}
