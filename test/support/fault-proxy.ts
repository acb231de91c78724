/**
 * An HTTP proxy in front of a real service that injects faults: for each request, `fault`
 * may answer in the service's place (a 429, a 503), cut the connection once the service
 * has the request and `drop` resolves (a connection lost mid-hold), or let it through.
 */
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Reply } from './scripted-http.js';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Fault = Reply | { drop: () => Promise<unknown> } | undefined;

export interface FaultProxy {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

export async function faultProxy(target: string, fault: (seen: Seen, index: number) => Fault): Promise<FaultProxy> {
  const seen: Seen[] = [];
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const entry = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(entry);
      const f = fault(entry, seen.length - 1);
      if (f && 'status' in f) {
        res.writeHead(f.status, { 'content-type': 'application/json', ...f.headers });
        return res.end(JSON.stringify(f.body));
      }
      const forwarded = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
        (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on('error', () => req.socket.destroy());
      forwarded.end(body);
      if (f && 'drop' in f) {
        void f.drop().then(() => {
          req.socket.destroy();
          forwarded.destroy();
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
