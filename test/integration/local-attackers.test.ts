/**
 * What another local process can do to the service without a key, or with the wrong one:
 * hold connections open by sending slowly, open connections without end, make the
 * service warn under many long polls, leave traces with a refused key, or spend the admin
 * token without limit. Raw sockets where HTTP clients would be too polite.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.js';
import { startTestService, type TestService } from '../support/harness.js';
import { until } from '../support/until.js';

/** Short limits so the test waits a second, not thirty. */
const TIGHT = { headersMs: 800, requestMs: 1_200, checkEveryMs: 100, maxConnections: 20, holdsPerKey: 3, holdsPerAccount: 4, holdsPerAddress: 5 };

let t: TestService | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

interface RawConnection {
  socket: net.Socket;
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<{ data: string; atMs: number }>;
}

function connect(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    let data = '';
    const started = Date.now();
    socket.setEncoding('utf8').on('data', (d: string) => (data += d));
    const closed = new Promise<{ data: string; atMs: number }>((res) => socket.once('close', () => res({ data, atMs: Date.now() - started })));
    socket.once('error', () => {});
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** Writes `text` one byte every `everyMs` until the socket closes; resolves with how many bytes went out. */
function trickle(socket: net.Socket, text: string, everyMs: number): Promise<number> {
  return new Promise((resolve) => {
    let i = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || i >= text.length) {
        clearInterval(timer);
        resolve(i);
        return;
      }
      socket.write(text[i++]!);
    }, everyMs);
  });
}

describe('slow requests', () => {
  it('a body sent one byte at a time is cut off once the request time is up, with an envelope, also unauthenticated on an unknown route', async () => {
    t = await startTestService({ connections: TIGHT });
    const port = new URL(t.url).port;
    const cases = [
      { path: '/v1/completions', auth: `Authorization: Bearer ${t.key}\r\n` },
      // Refused at once (404 without reading the body), but the connection still waits for the body's end.
      { path: '/nowhere', auth: '' },
    ];
    for (const { path, auth } of cases) {
      const c = await connect(t.url);
      c.socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${auth}Content-Type: application/json\r\nContent-Length: 200\r\n\r\n`);
      void trickle(c.socket, `{"prompt":"${'x'.repeat(180)}"}`, 100);
      const { data, atMs } = await c.closed;
      // The check runs every 100 ms after the 1 200 ms are up; 200 bytes at 10/s would need 20 s.
      expect(atMs, path).toBeLessThan(4_000);
      const last = data.slice(data.lastIndexOf('HTTP/1.1 '));
      expect(last, path).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(last.slice(last.indexOf('\r\n\r\n') + 4)).error.message).toBe('The request was not received in time.');
    }
  });

  it('a client that never reads loses its socket after the cut, even while it keeps writing', async () => {
    t = await startTestService({ connections: TIGHT });
    const port = new URL(t.url).port;
    const c = await connect(t.url);
    c.socket.pause(); // never reads: the answer and the server's FIN stay unread
    c.socket.write(`POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`);
    const writing = trickle(c.socket, 'x'.repeat(100_000), 50);
    const open = () => new Promise<number>((res, rej) => t!.service.app.server.getConnections((e, n) => (e ? rej(e) : res(n))));
    expect(await open()).toBe(1);
    // The cut comes after 1.2 s, then the server lets the answer drain a moment before it hangs up.
    await until(async () => (await open()) === 0, 8_000, 'the server to let the socket go');
    c.socket.destroy();
    expect(await writing).toBeGreaterThan(20); // it was still writing when the server let go
  });

  it('headers sent one byte at a time are cut off too', async () => {
    t = await startTestService({ connections: TIGHT });
    const c = await connect(t.url);
    void trickle(c.socket, `GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'y'.repeat(200)}\r\n\r\n`, 50);
    const { data, atMs } = await c.closed;
    expect(atMs).toBeLessThan(3_000);
    expect(data).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('a long poll held longer than the request time still gets its answer: holding is the server, not the client', async () => {
    t = await startTestService({ connections: TIGHT, agents: { chatgpt: 1 } });
    const started = Date.now();
    const res = await t.api('POST', '/v1/completions', { body: { prompt: 'slow [[ms=2500]]' } });
    expect(Date.now() - started).toBeGreaterThan(TIGHT.requestMs + 500);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('succeeded');
  });
});

describe('connections', () => {
  it('over the cap a new connection is closed at once; under it again, it is served', async () => {
    t = await startTestService({ connections: TIGHT });
    const port = new URL(t.url).port;
    const ask = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
    const open: RawConnection[] = [];
    for (let i = 0; i < TIGHT.maxConnections; i++) {
      const c = await connect(t.url);
      c.socket.write(ask);
      // Answered: the server has accepted and counts this connection (kept alive).
      await new Promise((res) => c.socket.once('data', res));
      open.push(c);
    }
    const over = await connect(t.url);
    over.socket.write(ask);
    const refused = await over.closed;
    expect(refused.data).toBe('');

    open.pop()!.socket.destroy();
    // Under the cap again once the server has seen the close.
    const server = t.service.app.server;
    await until(() => new Promise<boolean>((res, rej) => server.getConnections((e, n) => (e ? rej(e) : res(n < TIGHT.maxConnections)))), 15_000, 'the server to see the close');
    const again = await connect(t.url);
    again.socket.write(ask);
    const answer = await new Promise<string>((res) => again.socket.once('data', (d) => res(String(d))));
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    for (const c of [...open, again]) c.socket.destroy();
  });
});

describe('many long polls', () => {
  it('500 concurrent holds print no MaxListenersExceededWarning, and all end when the job does', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      t = await startTestService();
      const accepted = await t.api('POST', '/v1/completions', {
        body: { prompt: 'nobody runs this', wait: false, callback_url: 'https://127.0.0.1:9/hook' },
      });
      expect(accepted.status).toBe(202);
      const id = accepted.body.id as string;
      const holds = Array.from({ length: 500 }, () => t!.api('GET', `/v1/completions/${id}?wait=true`));
      await until(() => t!.driver.waiting() === 500, 10_000, '500 waiting callers');
      expect((await t.api('DELETE', `/v1/completions/${id}`)).status).toBe(200);
      const answers = await Promise.all(holds);
      expect(answers.every((a) => a.status === 200 && a.body.status === 'cancelled')).toBe(true);
      // Warnings are emitted on the next tick.
      await new Promise((res) => setImmediate(res));
      expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('holds per tenant', () => {
  it('caps the requests one key and one account hold open, with 429 and Retry-After past it, submitting nothing', async () => {
    t = await startTestService({ profile: 'hosted', connections: { ...TIGHT, maxConnections: 100 } });
    const other = await t.createKey(['completions:read', 'completions:write']);
    const stranger = await t.createAccount('other');
    const accepted = await t.api('POST', '/v1/completions', { body: { prompt: 'nobody runs this', wait: false, callback_url: 'https://127.0.0.1:9/hook' } });
    expect(accepted.status).toBe(202);
    const id = accepted.body.id as string;
    const hold = (key: string) => t!.api('GET', `/v1/completions/${id}?wait=true`, { key });
    /** The answer if it comes within 10 s (a busy machine's "at once"); undefined while the request is held. */
    const within = async (answer: Promise<{ status: number }>) => Promise.race([answer, new Promise<undefined>((res) => setTimeout(res, 10_000))]);

    const held = [hold(t.key), hold(t.key), hold(t.key)];
    await until(() => t!.driver.waiting() === 3, 10_000, '3 waiting callers');
    const refused = await within(hold(t.key));
    expect(refused?.status).toBe(429);
    const over = (await hold(t.key)) as { headers: Headers; body: { error: { code: string; message: string } } };
    expect(over.headers.get('retry-after')).toBe('10');
    expect(over.body.error.message).toMatch(/^This key already holds 3 requests open/);
    const jobs = async () => (await t!.driver.recent(100)).length;
    expect((await within(t.api('POST', '/v1/completions', { body: { prompt: 'another' } })))?.status).toBe(429);
    expect((await within(t.api('POST', '/v1/chat/completions', { body: { model: 'service/auto', messages: [{ role: 'user', content: 'hi' }] } })))?.status).toBe(429);
    expect(await jobs()).toBe(1);

    // The account's other key has room for one more, the account's cap; another account is apart.
    held.push(hold(other));
    await until(() => t!.driver.waiting() === 4, 10_000, '4 waiting callers');
    expect((await within(hold(other)))?.status).toBe(429);
    const strangers = stranger.key;
    const theirs = await t.api('POST', '/v1/completions', { key: strangers, body: { prompt: 'theirs', wait: false, callback_url: 'https://127.0.0.1:9/hook' } });
    const theirHold = t.api('GET', `/v1/completions/${theirs.body.id}?wait=true`, { key: strangers });
    await until(() => t!.driver.waiting() === 5, 10_000, '5 waiting callers');

    // Once the holds end, their slots are free again.
    expect((await t.api('DELETE', `/v1/completions/${id}`)).status).toBe(200);
    expect((await Promise.all(held)).map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect((await within(hold(t.key)))?.status).toBe(200);
    expect((await t.api('DELETE', `/v1/completions/${theirs.body.id}`, { key: strangers })).status).toBe(200);
    expect((await theirHold).status).toBe(200);
  });
});

describe('holds per client address', () => {
  it('caps the requests one client holds open whatever keys and accounts it uses; a proxy on this machine names the client', async () => {
    t = await startTestService({ profile: 'hosted', connections: { ...TIGHT, maxConnections: 100 } });
    const [a, b] = [await t.createAccount('a'), await t.createAccount('b')];
    const queued = async (key: string) =>
      (await t!.api('POST', '/v1/completions', { key, body: { prompt: 'nobody runs this', wait: false, callback_url: 'https://127.0.0.1:9/hook' } })).body.id as string;
    const [jobA, jobB] = [await queued(a.key), await queued(b.key)];
    /** A hold through a TLS proxy on this machine, for the client at `client`. */
    const hold = (key: string, id: string, client: string) =>
      t!.api('GET', `/v1/completions/${id}?wait=true`, { key, headers: { 'x-forwarded-for': `198.51.100.9, ${client}` } });
    const held = [...[1, 2, 3].map(() => hold(a.key, jobA, '203.0.113.7')), hold(b.key, jobB, '203.0.113.7'), hold(b.key, jobB, '203.0.113.7')];
    await until(() => t!.driver.waiting() === 5, 10_000, '5 waiting callers');

    // Each key and account has room, the client address none.
    const over = await hold(b.key, jobB, '203.0.113.7');
    expect([over.status, over.headers.get('retry-after'), over.body.error.message]).toEqual([
      429,
      '10',
      'This client address already holds 5 requests open waiting for jobs to end; wait for one to end, or submit with wait: false and poll or take a callback_url.',
    ]);
    // Another client has room.
    held.push(hold(b.key, jobB, '203.0.113.8'));
    await until(() => t!.driver.waiting() === 6, 10_000, 'the other client waiting');

    for (const [key, id] of [[a.key, jobA], [b.key, jobB]]) expect((await t.api('DELETE', `/v1/completions/${id}`, { key })).status).toBe(200);
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
  });
});

describe('keys and the admin token', () => {
  it("a key refused for a missing scope does not get a last use; an allowed request does", async () => {
    t = await startTestService({ listen: false });
    const readOnly = await t.createKey(['completions:read']);
    const id = () => t!.driver.keys.list().find((k) => k.name === 'test' && k.scopes.length === 1)!;
    expect((await t.api('POST', '/v1/completions', { key: readOnly, body: { prompt: 'x' } })).status).toBe(403);
    expect((await t.api('GET', '/admin/v1/state', { key: readOnly })).status).toBe(403);
    expect(id().last_used_at).toBeNull();
    expect((await t.api('GET', '/v1/completions/job_nope', { key: readOnly })).status).toBe(404);
    expect(id().last_used_at).not.toBeNull();
  });

  it('the admin token spends a budget of its own on /v1, as a key does, apart from the keys', async () => {
    t = await startTestService({ listen: false, clock: new ManualClock() });
    const token = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
    // The write budget is spent before the body is read: 600 invalid bodies use it up.
    for (let i = 0; i < 600; i++) {
      const r = await t.api('POST', '/v1/completions', { key: token, body: {} });
      expect(r.status).toBe(400);
    }
    const over = await t.api('POST', '/v1/completions', { key: token, body: {} });
    expect(over.status).toBe(429);
    expect(over.body.error.message).toMatch(/admin token/);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    // A key's budget is its own.
    expect((await t.api('POST', '/v1/completions', { body: {} })).status).toBe(400);
    // The dashboard's own routes are not budgeted.
    expect((await t.api('GET', '/admin/v1/state', { key: token })).status).toBe(200);
  });
});
