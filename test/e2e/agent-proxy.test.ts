/**
 * An agent's proxy, end to end: a tiny HTTP proxy here that counts what goes through it
 * (and asks for credentials), an agent set to use it through the admin API, and the
 * simulated provider answering through it. Real Chromium, the real flow.
 */
import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from '../support/e2e.js';
import { until } from '../support/until.js';

interface CountingProxy {
  port: number;
  /** Absolute URLs forwarded, after the credentials checked out. */
  forwarded: string[];
  /** Requests refused for lack of (the right) credentials. */
  challenged: number;
  close(): Promise<void>;
}

/** A forward HTTP proxy that wants `user:pass` (Basic), as a paid proxy would. */
async function countingProxy(user: string, pass: string): Promise<CountingProxy> {
  const expected = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  const state = { forwarded: [] as string[], challenged: 0 };
  const server: Server = createServer((req, res) => {
    if (req.headers['proxy-authorization'] !== expected) {
      state.challenged++;
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-length': '0' }).end();
      return;
    }
    state.forwarded.push(req.url!);
    const target = new URL(req.url!);
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get forwarded() {
      return state.forwarded;
    },
    get challenged() {
      return state.challenged;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('an agent behind its own proxy', () => {
  let e: E2E;
  let proxy: CountingProxy;
  let admin: string;
  beforeAll(async () => {
    e = await startE2E('claude', 1);
    proxy = await countingProxy('alice', 'hunter22');
    admin = readFileSync(join(e.dataDir, 'admin-token'), 'utf8').trim();
  }, 60_000);
  afterAll(async () => {
    await e?.stop();
    await proxy?.close();
  });

  const as = (method: string, path: string, body?: unknown) => e.api(method, path, { key: admin, body });
  const ask = (prompt: string) => e.api('POST', '/v1/completions', { body: { provider: 'claude', prompt } });
  const simHost = () => new URL(e.sim.url).host;

  it('reaches the provider only through the proxy once set, with its credentials, and directly again once removed', async () => {
    const id = e.browserAgents[0]!.id;
    const before = e.runtime.agent(id);
    expect((await ask('Direct first')).status).toBe(200);
    expect(proxy.forwarded).toEqual([]);

    const set = await as('PATCH', `/admin/v1/agents/${id}`, { proxy: `http://alice:hunter22@127.0.0.1:${proxy.port}` });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.proxy).toBe(`http://a…:••••@127.0.0.1:${proxy.port}`);
    // Its context opens again behind the proxy, with its saved login: still logged in.
    await until(() => e.runtime.agent(id) !== before && e.runtime.agent(id)?.readiness() === 'idle', 30_000, 'the agent restarted behind its proxy');
    expect(proxy.challenged).toBeGreaterThan(0); // the proxy asked, the browser answered
    const loaded = proxy.forwarded.length;
    expect(loaded).toBeGreaterThan(0);

    const r = await ask('Through the proxy, please');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.response).toContain('Through the proxy, please');
    expect(proxy.forwarded.length).toBeGreaterThan(loaded);
    expect(proxy.forwarded.every((url) => new URL(url).host === simHost())).toBe(true);
    expect(JSON.stringify((await as('GET', '/admin/v1/logs')).body)).not.toContain('hunter22');

    const behind = e.runtime.agent(id);
    expect((await as('PATCH', `/admin/v1/agents/${id}`, { proxy: null })).body.proxy).toBeNull();
    await until(() => e.runtime.agent(id) !== behind && e.runtime.agent(id)?.readiness() === 'idle', 30_000, 'the agent restarted, direct');
    const seen = proxy.forwarded.length;
    expect((await ask('Direct again')).status).toBe(200);
    expect(proxy.forwarded.length).toBe(seen);
  }, 120_000);
});
