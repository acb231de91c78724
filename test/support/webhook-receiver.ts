/**
 * A real HTTPS webhook receiver on loopback for tests and benchmarks, with a self-signed
 * certificate made by the `openssl` binary (the command docs/webhooks.md gives), and the
 * receiver's side of the signature check.
 */
import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Certificate {
  dir: string;
  keyFile: string;
  certFile: string;
  key: Buffer;
  cert: Buffer;
  remove(): void;
}

/** A self-signed certificate for 127.0.0.1 and localhost, in a fresh temp dir. */
export function makeCertificate(): Certificate {
  const dir = mkdtempSync(join(tmpdir(), 'chatbridge-cert-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '825',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', keyFile, '-out', certFile],
    { stdio: 'ignore' },
  );
  return { dir, keyFile, certFile, key: readFileSync(keyFile), cert: readFileSync(certFile), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw bytes of the body, as they arrived. */
  body: Buffer;
  /** performance.timeOrigin + performance.now() when the whole body had arrived. */
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
}

/** Decides the answer to a request; may take its time (a slow receiver). */
export type Responder = (request: Received) => Answer | Promise<Answer>;

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Requests being handled now, and the most at once so far. */
  active = 0;
  maxActive = 0;
  private waiters: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    public respond: Responder,
  ) {}

  static async start(cert: Certificate, respond: Responder = () => ({ status: 204 })): Promise<WebhookReceiver> {
    const server = createServer({ key: cert.key, cert: cert.cert });
    const receiver = new WebhookReceiver(server, respond);
    server.on('request', (req, res) => {
      receiver.active++;
      receiver.maxActive = Math.max(receiver.maxActive, receiver.active);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const request: Received = {
          method: req.method!,
          path: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks),
          at: performance.timeOrigin + performance.now(),
        };
        receiver.received.push(request);
        for (const w of receiver.waiters.splice(0)) w();
        try {
          const answer = await receiver.respond(request);
          res.writeHead(answer.status, answer.headers).end();
        } finally {
          receiver.active--;
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path = '/hook'): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Resolves once `count` requests have arrived in all (real time, at most `ms`). */
  async waitFor(count: number, ms = 5_000): Promise<Received[]> {
    const end = Date.now() + ms;
    while (this.received.length < count) {
      const left = end - Date.now();
      if (left <= 0) throw new Error(`The receiver got ${this.received.length} requests, not ${count}, within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received;
  }

  /** The bodies received, parsed. */
  jobs(): any[] {
    return this.received.map((r) => JSON.parse(r.body.toString('utf8')));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * What a receiver does before it parses (api.md): HMAC-SHA256 of `<timestamp>.<raw body>`
 * compared in constant time, and the timestamp within 300 s of its own clock.
 */
export function verifySignature(secret: string, request: Received, nowMs: number): boolean {
  const timestamp = String(request.headers['x-service-timestamp'] ?? '');
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(request.body).digest('hex')}`);
  const given = Buffer.from(String(request.headers['x-service-signature'] ?? ''));
  const fresh = /^\d+$/.test(timestamp) && Math.abs(nowMs / 1000 - Number(timestamp)) <= 300;
  return fresh && given.length === expected.length && timingSafeEqual(given, expected);
}
