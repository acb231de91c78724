/**
 * An HTTP server that answers from a script, for testing clients of the API: each request
 * is recorded and handed to `answer`, which returns the reply or 'drop' to cut the
 * connection without one.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Answer = (request: Recorded, index: number) => Reply | 'drop' | Promise<Reply | 'drop'>;

export interface ScriptedHttp {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

export async function scriptedHttp(answer: Answer): Promise<ScriptedHttp> {
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded = { method: req.method!, url: req.url!, headers: req.headers, body: text ? JSON.parse(text) : undefined };
      requests.push(recorded);
      const reply = await answer(recorded, requests.length - 1);
      if (reply === 'drop') return req.socket.destroy();
      res.writeHead(reply.status, { 'content-type': 'application/json', 'x-request-id': `req_${requests.length}`, ...reply.headers });
      res.end(reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The service's error envelope. */
export function failure(status: number, code: string, details?: Record<string, unknown>, headers?: Record<string, string>): Reply {
  return { status, headers, body: { error: { code, message: `scripted ${code}`, request_id: 'req_scripted', ...(details ? { details } : {}) } } };
}
