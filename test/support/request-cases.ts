/**
 * Many requests against one service, each checked against the contract's rules for every
 * answer (contract-answers.ts) and what its case expects. `hostileService` starts the service
 * for a file: one instant scripted agent per provider, so a generated request that happens
 * to be valid (even with wait: true) is answered at once, and a pool of keys, so that the
 * per-key limits only trigger where a test means them to.
 *
 * Requests go through `app.inject()` unless a file asks for a socket: the shape of an answer
 * does not depend on the network, and inject costs a fraction of a connection's CPU. A file
 * whose subject is what travels on the wire (raw request targets, chunked bodies, the body
 * limit as a client meets it) sends over a real keep-alive connection.
 */
import http from 'node:http';
import { afterAll, beforeAll, expect } from 'vitest';
import { verify, type Expect, type Reply } from './contract-answers.js';
import { startTestService, type TestService } from './harness.js';
import { PROVIDERS } from './hostile-values.js';

export interface Case {
  name: string;
  method: string;
  path: string;
  /** Extra headers, sent as given (content-type is not added for you). */
  headers?: Record<string, string> | undefined;
  body?: string | Buffer | undefined;
  /** Send the body with Transfer-Encoding: chunked instead of Content-Length (sockets only). */
  chunked?: boolean;
  /** The Authorization header: undefined = a key from the pool, null = none. */
  auth?: string | null;
  /** Replaces the Host header. */
  host?: string;
  expect: Expect;
}

export type Transport = 'inject' | 'socket';

const CONCURRENCY = 20;
const POOL_KEYS = 40;

type Budget = 'read' | 'write' | 'none';

/** Which of a key's per-minute budgets a request spends. */
function budgetOf(method: string, path: string): Budget {
  const p = path.split('?')[0]!;
  if (method === 'POST' && (p === '/v1/completions' || p === '/v1/chat/completions')) return 'write';
  if (method === 'DELETE' && p.startsWith('/v1/completions/')) return 'write';
  if ((method === 'GET' || method === 'HEAD') && (p.startsWith('/v1/completions/') || p === '/v1/status' || p === '/v1/models')) {
    return 'read';
  }
  return 'none';
}

export interface HostileService {
  readonly t: TestService;
  /** The pool's keys (both scopes). */
  readonly keys: string[];
  /** The scripted agents' ids, one per provider. */
  readonly agentIds: string[];
  /** One request, with `authorization` as given (null: none). */
  send(c: Case, authorization: string | null): Promise<Reply | { error: string }>;
  /** Sends the cases, CONCURRENCY at a time, and expects no problem with any answer. */
  expectNoProblems(cases: Case[]): Promise<void>;
}

/** A service for this file's tests, started before them and stopped after them. */
export function hostileService(transport: Transport = 'inject'): HostileService {
  let t: TestService;
  let keys: string[] = [];
  let agentIds: string[] = [];
  let socketAgent: http.Agent | undefined;
  const used: Record<Budget, number> = { read: 0, write: 0, none: 0 };
  // Every answer of the file carries a request id of its own.
  const requestIds = new Set<string>();

  beforeAll(async () => {
    t = await startTestService({ agents: Object.fromEntries(PROVIDERS.map((p) => [p, 1])), listen: transport === 'socket' });
    if (transport === 'socket') socketAgent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    keys = await Promise.all(Array.from({ length: POOL_KEYS }, () => t.createKey(['completions:read', 'completions:write'])));
    agentIds = t.agents.map((a) => a.id);
  });

  afterAll(async () => {
    socketAgent?.destroy();
    await t?.stop();
  });

  function headersOf(c: Case, authorization: string | null): Record<string, string> {
    const headers: Record<string, string> = { ...(c.headers ?? {}) };
    if (authorization !== null) headers.authorization = authorization;
    if (c.host !== undefined) headers.host = c.host;
    return headers;
  }

  async function inject(c: Case, authorization: string | null): Promise<Reply | { error: string }> {
    // inject parses the path as a URL and sends what the parser makes of it, and it replaces
    // an empty Host with its own: such a case belongs on a socket, where it arrives as written.
    const parsed = new URL(c.path, 'http://localhost');
    if (parsed.pathname + parsed.search !== c.path) throw new Error(`[${c.name}] inject would send ${parsed.pathname + parsed.search}, not ${c.path}: send it over a socket`);
    if (c.host === '' || c.chunked) throw new Error(`[${c.name}] inject cannot send an empty Host or a chunked body: send it over a socket`);
    try {
      const res = await t.service.app.inject({ method: c.method as 'GET', url: c.path, headers: headersOf(c, authorization), ...(c.body !== undefined ? { payload: c.body } : {}) });
      return { status: res.statusCode, headers: res.headers, text: res.body };
    } catch (error) {
      return { error: (error as Error).message };
    }
  }

  function overSocket(c: Case, authorization: string | null): Promise<Reply | { error: string }> {
    return new Promise((resolve) => {
      const headers = headersOf(c, authorization);
      if (c.body !== undefined) {
        if (c.chunked) headers['transfer-encoding'] = 'chunked';
        else headers['content-length'] = String(Buffer.byteLength(c.body));
      }
      const base = new URL(t.url);
      const req = http.request(
        { host: base.hostname, port: base.port, method: c.method, path: c.path, headers, agent: socketAgent, setHost: c.host === undefined },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (e) => resolve({ error: `response: ${e.message}` }));
        },
      );
      req.setTimeout(20_000, () => req.destroy(new Error('no answer within 20 s')));
      req.on('error', (e) => resolve({ error: e.message }));
      if (c.body !== undefined) {
        // In pieces, so chunked bodies really are chunked.
        const buf = Buffer.isBuffer(c.body) ? c.body : Buffer.from(c.body);
        for (let i = 0; i < buf.length; i += 256 * 1024) req.write(buf.subarray(i, i + 256 * 1024));
      }
      req.end();
    });
  }

  const send = transport === 'socket' ? overSocket : inject;

  /** The Authorization for a case: its own, or the next key of the pool for its budget. */
  function authFor(c: Case): string | null {
    if (c.auth !== undefined) return c.auth;
    const n = used[budgetOf(c.method, c.path)]++;
    return `Bearer ${keys[n % keys.length]}`;
  }

  async function runCases(cases: Case[]): Promise<string[]> {
    const problems: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const c = cases[next++]!;
        const reply = await send(c, authFor(c));
        const where = `${c.method} ${c.path.slice(0, 80)} [${c.name}]`;
        if ('error' in reply) {
          problems.push(`${where}: no answer (${reply.error})`);
          continue;
        }
        const id = reply.headers['x-request-id'];
        if (typeof id === 'string') {
          if (requestIds.has(id)) problems.push(`${where}: request id ${id} was given twice`);
          requestIds.add(id);
        }
        for (const p of verify(c.method, c.expect, reply)) problems.push(`${where}: ${p}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return problems;
  }

  return {
    get t() {
      return t;
    },
    get keys() {
      return keys;
    },
    get agentIds() {
      return agentIds;
    },
    send,
    async expectNoProblems(cases) {
      expect(cases.length).toBeGreaterThan(0);
      const problems = await runCases(cases);
      const shown = problems.slice(0, 40).join('\n');
      expect(problems, problems.length > 40 ? `${shown}\n… and ${problems.length - 40} more` : shown).toEqual([]);
    },
  };
}

/** A POST of `body` as given (JSON's content type unless `headers` says otherwise). */
export const post = (path: string, name: string, body: string, expect: Expect, headers: Record<string, string> = { 'content-type': 'application/json' }): Case => ({
  name,
  method: 'POST',
  path,
  headers,
  body,
  expect,
});

/**
 * After a file's hostile requests, normal ones still get their answers (a job through an
 * agent, a read, a chat completion, status and models), and nothing leaked into
 * Object.prototype of this process, where the service runs.
 */
export async function expectStillServing(t: TestService): Promise<void> {
  const key = await t.createKey(['completions:read', 'completions:write']);
  const done = await t.api('POST', '/v1/completions', { key, body: { prompt: 'still alive?', provider: 'chatgpt' } });
  expect(done.status).toBe(200);
  expect(done.body.status).toBe('succeeded');
  expect(done.body.response).toMatch(/^echo\(agt_\w+#1\): still alive\?$/);
  const read = await t.api('GET', `/v1/completions/${done.body.id}`, { key });
  expect(read.status).toBe(200);
  expect(read.body.response).toBe(done.body.response);
  const chat = await t.api('POST', '/v1/chat/completions', { key, body: { model: 'service/claude', messages: [{ role: 'user', content: 'and chat?' }] } });
  expect(chat.status).toBe(200);
  expect(chat.body.choices[0].message.content).toMatch(/: and chat\?$/);
  expect((await t.api('GET', '/v1/status', { key })).status).toBe(200);
  expect((await t.api('GET', '/v1/models', { key })).body.data[0].id).toBe('service/auto');
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}
