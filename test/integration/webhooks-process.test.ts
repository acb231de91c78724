/**
 * Webhooks through real processes: the service (dist/test/support/scripted-server.js)
 * trusting a self-signed receiver through NODE_EXTRA_CA_CERTS as docs/webhooks.md says, the
 * receiver example of docs/webhooks.md, the `webhooks` commands against a running server, and a
 * SIGKILL while an attempt is in flight.
 *
 * Needs dist/ built (`tsc` runs before `vitest run` in `npm test`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { makeCertificate, verifySignature, WebhookReceiver, type Certificate } from '../support/webhook-receiver.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(ROOT, 'bin/chatbridge.js');
const SCRIPTED_SERVER = join(ROOT, 'dist/test/support/scripted-server.js');

let cert: Certificate;
beforeAll(() => {
  cert = makeCertificate();
});
afterAll(() => cert.remove());

// ---------------------------------------------------------------------------------------
// Processes: every child is tracked and SIGKILLed after each test if still alive.

interface Proc {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<Proc>();
const cleanups: (() => unknown)[] = [];

afterEach(async () => {
  for (const p of [...children]) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await p.closed;
  }
  for (const c of cleanups.splice(0).reverse()) await c();
});

function launch(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Proc {
  const env = { ...process.env, ...options.env };
  delete env.NODE_EXTRA_CA_CERTS; // only where a test gives it
  if (options.env?.NODE_EXTRA_CA_CERTS) env.NODE_EXTRA_CA_CERTS = options.env.NODE_EXTRA_CA_CERTS;
  const child = spawn(process.execPath, args, { cwd: options.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.once('close', (code, signal) => res({ code, signal })),
  );
  const proc = { child, out, closed };
  children.add(proc);
  void closed.then(() => children.delete(proc));
  return proc;
}

/** Resolves with the URL a process printed as "listening on URL". */
async function listening(p: Proc): Promise<string> {
  return until(() => {
    if (p.child.exitCode !== null) throw new Error(`exited before listening: ${p.out.stderr}`);
    return /^listening on (\S+)$/m.exec(p.out.stdout)?.[1];
  }, 15_000, 'listening');
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'chatbridge-webhooks-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** `chatbridge …` to its end. */
async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; endedAt: number }> {
  const p = launch([CLI, ...args]);
  const { code } = await p.closed;
  return { code, stdout: p.out.stdout, stderr: p.out.stderr, endedAt: Date.now() };
}

async function ok(args: string[]): Promise<string> {
  const r = await cli(args);
  expect(r.code, `chatbridge ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/** The service in its own process, trusting the test certificate through NODE_EXTRA_CA_CERTS. */
async function startServer(dataDir: string): Promise<{ proc: Proc; url: string }> {
  const proc = launch([SCRIPTED_SERVER, '--data-dir', dataDir, '--agents', 'chatgpt=1'], { env: { NODE_EXTRA_CA_CERTS: cert.certFile } });
  return { proc, url: await listening(proc) };
}

async function setUp(): Promise<{ dir: string; key: string; secret: string }> {
  const dir = tempDir();
  const key = (await ok(['keys', 'create', '--name', 'hooks', '--scopes', 'completions:read,completions:write', '--data-dir', dir]))
    .trimEnd()
    .split('\n')
    .pop()!;
  const secret = (await ok(['webhooks', 'secret', '--data-dir', dir])).trim();
  expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
  return { dir, key, secret };
}

/** POST /v1/completions: the answer's body, with its HTTP status as `http`. */
async function submit(url: string, key: string, body: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${url}/v1/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { http: res.status, ...((await res.json()) as object) };
}

/** A POST from this process to a receiver that uses the test certificate. */
function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca: cert.cert, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const hmac = (secret: string, timestamp: number | string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

/**
 * The receiver example of docs/webhooks.md, as written there, in `dir` as a project of its own
 * with chatbridge installed (node_modules/chatbridge: this package, as npm would link it).
 */
function writeReadmeReceiver(dir: string): string {
  const page = readFileSync(join(ROOT, 'docs', 'webhooks.md'), 'utf8');
  const block = [...page.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).find((code) => code.includes('verifyWebhook('));
  if (!block) throw new Error('No receiver example in docs/webhooks.md');
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules', 'chatbridge'), 'dir');
  writeFileSync(join(dir, 'receiver.mjs'), block);
  return 'receiver.mjs';
}

// ---------------------------------------------------------------------------------------

describe('webhooks between real processes', () => {
  it("the receiver of docs/webhooks.md verifies what a server trusting it through NODE_EXTRA_CA_CERTS sends, and refuses forgeries", async () => {
    const { dir, key, secret } = await setUp();
    const receiver = launch([writeReadmeReceiver(cert.dir)], { cwd: cert.dir, env: { CHATBRIDGE_WEBHOOK_SECRET: secret, PORT: '0' } });
    const hookBase = await listening(receiver);
    const server = await startServer(dir);

    const done = await submit(server.url, key, { prompt: 'hello hook', callback_url: `${hookBase}/hook`, metadata: { ticket: 42 } });
    expect(done.http).toBe(200);
    await until(() => receiver.out.stdout.includes(`${done.id} succeeded ${done.response}`), 15_000, 'the receiver to print the job');
    const log = await ok(['webhooks', 'log', done.id, '--data-dir', dir]);
    expect(log).toContain(`${done.id} → ${hookBase}/hook: delivered`);
    expect(log).toMatch(/\n1 +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ +\d+ ms  HTTP 204\n/);

    // Forgeries: a wrong signature, a stale timestamp correctly signed, no headers at all.
    const body = JSON.stringify({ id: 'job_forged', status: 'succeeded' });
    const now = Math.floor(Date.now() / 1000);
    const headers = (ts: number, sig: string) => ({ 'x-service-timestamp': String(ts), 'x-service-signature': sig });
    expect(await post(`${hookBase}/hook`, headers(now, hmac('whsec_wrong', now, body)), body)).toBe(401);
    expect(await post(`${hookBase}/hook`, headers(now - 301, hmac(secret, now - 301, body)), body)).toBe(401);
    expect(await post(`${hookBase}/hook`, {}, body)).toBe(401);
    expect(await post(`${hookBase}/hook`, headers(now, hmac(secret, now, body)), body)).toBe(204);
    await until(() => receiver.out.stdout.includes('job_forged succeeded'), 15_000, 'the receiver to print the genuine one');
  });

  it('webhooks redeliver reaches the running server within a second; log and secret --rotate from the command line', async () => {
    const { dir, key, secret } = await setUp();
    const hook = await WebhookReceiver.start(cert);
    cleanups.push(() => hook.close());
    const server = await startServer(dir);
    const done = await submit(server.url, key, { prompt: 'again', callback_url: hook.url() });
    await hook.waitFor(1);
    expect(verifySignature(secret, hook.received[0]!, Date.now())).toBe(true);
    await until(async () => (await ok(['webhooks', 'log', done.id, '--data-dir', dir])).includes('delivered'));

    const rotated = await cli(['webhooks', 'secret', '--rotate', '--data-dir', dir]);
    expect(rotated.code).toBe(0);
    const newSecret = rotated.stdout.trim();
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    expect(rotated.stderr).toMatch(/Rotated/);
    expect((await ok(['webhooks', 'secret', '--data-dir', dir])).trim()).toBe(newSecret);

    const asked = await cli(['webhooks', 'redeliver', done.id, '--data-dir', dir]);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toContain('the running server sends it within a second');
    await hook.waitFor(2, 2_000);
    expect(hook.received[1]!.at - asked.endedAt).toBeLessThan(1_000);
    expect(verifySignature(newSecret, hook.received[1]!, Date.now())).toBe(true);
    expect(hook.received[1]!.body.equals(hook.received[0]!.body)).toBe(true);
    await until(async () => /-- redelivery 1\n2 .*HTTP 204/.test(await ok(['webhooks', 'log', done.id, '--data-dir', dir])));

    // What the commands refuse, each as one line with exit code 2.
    const plain = await submit(server.url, key, { prompt: 'no hook' });
    const refusals: [string[], RegExp][] = [
      [['webhooks', 'log', 'job_nope'], /^chatbridge: No job job_nope\.\n$/],
      [['webhooks', 'redeliver', plain.id], /has no callback_url/],
      [['webhooks', 'redeliver'], /Which job\?/],
      [['webhooks', 'frobnicate'], /Use: (?:npx )?chatbridge webhooks log JOB_ID/],
    ];
    for (const [args, message] of refusals) {
      const r = await cli([...args, '--data-dir', dir]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it('SIGKILL while an attempt is in flight: the next start sends it again; a redelivery asked for while down goes out at start', async () => {
    const { dir, key } = await setUp();
    let calls = 0;
    const hook = await WebhookReceiver.start(cert, () => (++calls === 1 ? new Promise(() => {}) : { status: 204 }));
    cleanups.push(() => hook.close());
    let server = await startServer(dir);
    const job = await submit(server.url, key, { prompt: 'crash mid-delivery', wait: false, callback_url: hook.url() });
    expect(job.http).toBe(202);
    await hook.waitFor(1);
    server.proc.child.kill('SIGKILL');
    await server.proc.closed;

    server = await startServer(dir);
    await hook.waitFor(2);
    await until(async () => (await ok(['webhooks', 'log', job.id, '--data-dir', dir])).includes('delivered'));
    const log = await ok(['webhooks', 'log', job.id, '--data-dir', dir]);
    expect(log.trimEnd().split('\n')).toHaveLength(3); // the state, the header, one attempt: the killed one was never recorded

    server.proc.child.kill('SIGTERM');
    expect(await server.proc.closed).toEqual({ code: 0, signal: null });
    expect(await ok(['webhooks', 'redeliver', job.id, '--data-dir', dir])).toContain('it is sent when ChatBridge next starts');
    expect(await ok(['webhooks', 'log', job.id, '--data-dir', dir])).toContain('pending, due now');
    await startServer(dir);
    await hook.waitFor(3);
    expect(new Set(hook.jobs().map((j) => j.id))).toEqual(new Set([job.id]));
  });
});
