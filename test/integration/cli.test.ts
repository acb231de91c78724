/**
 * The command line through real processes: `node bin/chatbridge.js …` on temp data dirs,
 * against `chatbridge serve` or, where jobs must run, the scripted server (the same
 * service with scripted agents instead of browsers, in its own process).
 *
 * Needs dist/ built (`tsc` runs before `vitest run` in `npm test`).
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, listening, SCRIPTED_SERVER, SIMULATION_KEY, trackProcesses, type Exit, type Proc, type Running } from '../support/processes.js';
import { CLI as CLI_NAME } from '../../main/core/cli-name.js';

const CALLBACK = 'https://127.0.0.1:9/hook';
const KEY_SHAPE = /^cb_[0-9A-Za-z]{40}$/;

const procs = trackProcesses('chatbridge-cli-');
const tempDir = procs.tempDir;
/** Commands never fall back to the real home: XDG_DATA_HOME points at a temp dir. */
let fallbackHome = '';

beforeAll(() => {
  fallbackHome = mkdtempSync(join(tmpdir(), 'chatbridge-cli-home-'));
});

afterAll(() => {
  rmSync(fallbackHome, { recursive: true, force: true });
});

function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_DATA_HOME: fallbackHome, ...extra };
  if (!('CHATBRIDGE_DATA_DIR' in extra)) delete env.CHATBRIDGE_DATA_DIR;
  return env;
}

const launch = (args: string[], env: Record<string, string> = {}): Proc => procs.launch(args, childEnv(env));

interface CliResult extends Exit {
  stdout: string;
  stderr: string;
  /** When the process had exited: its change is committed by then. */
  endedAt: number;
}

/** One `chatbridge …` command, to its end (killed after 20 s). */
async function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const p = launch([CLI, ...args], env);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 20_000);
  const exit = await p.closed;
  clearTimeout(timer);
  return { ...exit, stdout: p.out.stdout, stderr: p.out.stderr, endedAt: Date.now() };
}

/** A command that must succeed. */
async function ok(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const r = await cli(args, env);
  expect(r, `chatbridge ${args.join(' ')}\n${r.stderr}`).toMatchObject({ code: 0, signal: null });
  return r;
}

async function createKey(dataDir: string, scopes: string, extra: string[] = []): Promise<{ id: string; key: string; stdout: string }> {
  const r = await ok(['keys', 'create', '--name', `key-${scopes}`, '--scopes', scopes, ...extra, '--data-dir', dataDir]);
  const lines = r.stdout.trimEnd().split('\n');
  const key = lines[lines.length - 1]!;
  expect(key).toMatch(KEY_SHAPE);
  const id = /\b(key_[0-9A-Za-z]+)\b/.exec(r.stdout)?.[1];
  expect(id, r.stdout).toBeDefined();
  return { id: id!, key, stdout: r.stdout };
}

const serve = (args: string[], env: Record<string, string> = {}) => listening(launch([CLI, 'serve', ...args], env));
const scripted = (dataDir: string, agents: string) =>
  listening(launch([SCRIPTED_SERVER, '--data-dir', dataDir, '--port', '0', '--agents', agents]));

async function stopWith(server: Running, signal: NodeJS.Signals): Promise<Exit> {
  server.child.kill(signal);
  return await Promise.race([
    server.closed,
    new Promise<Exit>((_, rej) => setTimeout(() => rej(new Error(`no exit 10 s after ${signal}`)), 10_000)),
  ]);
}

// ---------------------------------------------------------------------------------------
// HTTP

interface Res {
  status: number;
  body: any;
}

async function api(url: string, key: string | null, method: string, path: string, body?: unknown): Promise<Res> {
  const res = await fetch(url + path, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it holds; returns how long after `since` it first held. */
async function heldAfter(what: string, since: number, probe: () => Promise<boolean>, timeoutMs = 5_000): Promise<number> {
  for (;;) {
    if (await probe()) return Date.now() - since;
    if (Date.now() - since > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** Asserts a change made by a command that ended at `since` shows within one second. */
async function withinOneSecond(what: string, since: number, probe: () => Promise<boolean>): Promise<void> {
  const ms = await heldAfter(what, since, probe);
  expect(ms, `${what} took ${ms} ms`).toBeLessThan(1_000);
}

/** A user mistake: one line on stderr starting with "chatbridge:", no stack, non-zero exit. */
function expectUsageError(r: CliResult, message?: RegExp): void {
  const context = `stdout: ${r.stdout}\nstderr: ${r.stderr}`;
  expect(r.signal, context).toBeNull();
  expect(r.code, context).not.toBe(0);
  expect(r.stderr, context).toMatch(/^chatbridge: [^\n]+\n$/);
  expect(r.stderr, context).not.toMatch(/\n\s+at /);
  if (message) expect(r.stderr).toMatch(message);
}

// ---------------------------------------------------------------------------------------

describe('chatbridge serve', () => {
  it('serve --port 0 prints exactly "listening on http://127.0.0.1:PORT" and, off a terminal, the command that prints the dashboard link, never the link; answers, and stops with code 0 on SIGINT', async () => {
    const dir = tempDir();
    const { key } = await createKey(dir, 'completions:read,completions:write');
    const server = await serve(['--port', '0', '--data-dir', dir]);
    // With no account yet, a third line says how to add one.
    const m = /^listening on http:\/\/127\.0\.0\.1:(\d+)\ndashboard: [^\n]+\nno account is paired yet: [^\n]+\n$/.exec(server.out.stdout);
    expect(m, server.out.stdout).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${m![1]}`);

    const status = await api(server.url, key, 'GET', '/v1/status');
    expect(status.status).toBe(200);
    expect(status.body.devices[0].base_url).toBe(server.url);
    expect((await api(server.url, null, 'GET', '/v1/status')).body.error.code).toBe('UNAUTHORIZED');
    expect(existsSync(join(dir, 'chatbridge.db'))).toBe(true);
    await ok(['status', '--data-dir', dir]);

    // The hint runs as printed, and its link signs in.
    const token = readFileSync(join(dir, 'admin-token'), 'utf8').trim();
    const link = await ok(['dashboard', '--data-dir', dir]);
    expect(link.stdout).toBe(`dashboard: ${server.url}/#token=${token}\n`);
    expect((await api(server.url, token, 'GET', '/admin/v1/state')).status).toBe(200);

    expect(await stopWith(server, 'SIGINT')).toEqual({ code: 0, signal: null });
    expect(server.out.stdout).toBe(
      `listening on ${server.url}\ndashboard: ${CLI_NAME} dashboard --data-dir ${dir} prints its link (not written here: it holds the admin token)\n` +
        `no account is paired yet: jobs wait until you add one in the dashboard (Agents → Add account) or with ${CLI_NAME} agents add PROVIDER\n` +
        'stopped: no job was running\n',
    );
    expect(server.out.stderr).not.toContain(token);
    await expect(fetch(`${server.url}/v1/status`)).rejects.toThrow();
    // It no longer claims the data dir.
    expectUsageError(await cli(['status', '--data-dir', dir]), /not running/);
  });

  it('CHATBRIDGE_DATA_DIR selects the data dir of every command; SIGTERM stops serve with code 0', async () => {
    const dir = tempDir();
    const env = { CHATBRIDGE_DATA_DIR: dir };
    const created = await ok(['keys', 'create', '--name', 'via-env', '--scopes', 'completions:read'], env);
    const key = created.stdout.trimEnd().split('\n').pop()!;
    expect(key).toMatch(KEY_SHAPE);
    expect(existsSync(join(dir, 'chatbridge.db'))).toBe(true);

    const server = await serve(['--port', '0'], env);
    // The data dir is the variable's: the hint needs no flag.
    expect(server.out.stdout).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\ndashboard: (npx )?chatbridge dashboard prints its link \(not written here: it holds the admin token\)\nno account is paired yet: [^\n]+\n$/);
    expect((await ok(['dashboard'], env)).stdout).toBe(`dashboard: ${server.url}/#token=${readFileSync(join(dir, 'admin-token'), 'utf8').trim()}\n`);
    expect((await api(server.url, key, 'GET', '/v1/status')).status).toBe(200);
    const json = JSON.parse((await ok(['status', '--json'], env)).stdout);
    expect(json.devices[0].base_url).toBe(server.url);
    expect((await ok(['keys', 'list'], env)).stdout).toContain('"via-env"');
    // --data-dir wins over the variable (and, empty, has nothing to list).
    const other = tempDir();
    expectUsageError(await cli(['keys', 'list', '--data-dir', other], env), /Nothing is set up/);

    expect(await stopWith(server, 'SIGTERM')).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dir, 'server.json'))).toBe(false);
  });

  it('the simulation serve --simulate runs beside a data dir: status and ask find it, their hints carry its flag, other commands name the flag', async () => {
    const base = tempDir();
    const simulation = join(base, 'simulator');
    mkdirSync(simulation);
    const server = await scripted(simulation, 'claude=1');
    const env = { CHATBRIDGE_DATA_DIR: base };
    const status = await ok(['status'], env);
    expect(status.stdout).toContain(`The simulation (serve --simulate); for other commands: --data-dir ${simulation}\n`);
    expect(status.stdout).toContain(`ChatBridge at ${server.url}: running`);
    const asked = await ok(['ask', 'hello'], env);
    expect(asked.stdout).toMatch(/^echo\(agt_\w+#1\): hello\n$/);
    const ref = /conversation_ref (cv_\w+)/.exec(asked.stderr)?.[1];
    expect(asked.stderr).toContain(`(continue it: ${CLI_NAME} ask --data-dir ${simulation} --continue ${ref} "…")`);
    expect((await ok(['ask', '--data-dir', simulation, '--continue', ref!, 'again'])).stdout).toMatch(/#2\): again\n$/);
    expectUsageError(await cli(['agents', 'add', 'chatgpt'], env), new RegExp(`but a simulation is \\(serve --simulate\\): add --data-dir ${simulation}$`, 'm'));
  });

  it('commands without --data-dir beside a running simulation: with nothing in the data folder they act on the simulation, else on the folder, saying so and naming the flag', async () => {
    const home = tempDir();
    const base = join(home, 'chatbridge');
    const simulation = join(base, 'simulator');
    mkdirSync(simulation, { recursive: true });
    const server = await scripted(simulation, 'claude=1');
    const env = { XDG_DATA_HOME: home };
    const onSimulation = `chatbridge: acting on the simulation (serve --simulate) in ${simulation}: ${base} holds nothing yet.\n`;

    // A person who only ever ran the simulation: the key the MCP hint makes works on it.
    const made = await ok(['keys', 'create', '--name', 'mcp', '--scopes', 'completions:read,completions:write'], env);
    expect(made.stderr).toBe(onSimulation);
    expect((await api(server.url, made.stdout.trimEnd().split('\n').pop()!, 'GET', '/v1/status')).status).toBe(200);
    const listed = await ok(['agents', 'list'], env);
    expect(listed.stdout).toMatch(/^agt_\w+ +claude +idle /);
    expect(listed.stderr).toBe(onSimulation);
    const token = await ok(['admin-token'], env);
    expect(token.stdout).toBe(`dashboard: ${server.url}/#token=${readFileSync(join(simulation, 'admin-token'), 'utf8').trim()}\n`);
    expect(token.stderr).toBe(`chatbridge: the simulation (serve --simulate); for other commands: --data-dir ${simulation}\n`);
    expect(existsSync(join(base, 'chatbridge.db'))).toBe(false);

    // Once the folder holds data of its own, commands act on it, and say so in one line.
    await createKey(base, 'completions:read');
    const own = await ok(['agents', 'list'], env);
    expect(own.stdout).toMatch(/^No account is paired yet/);
    expect(own.stderr).toBe(`chatbridge: acting on ${base}; a simulation (serve --simulate) runs beside it: add --data-dir ${simulation} to act on that.\n`);
    // admin-token still gives the link of what runs; with nothing running, it fails and says what to start.
    expect((await ok(['admin-token'], env)).stdout).toContain(server.url);
    expect(await stopWith(server, 'SIGTERM')).toEqual({ code: 0, signal: null });
    expectUsageError(await cli(['admin-token'], env), new RegExp(`^chatbridge: ChatBridge is not running for ${base}\\. Start it \\(${CLI_NAME} serve\\), then run this again\\.\n$`));
  });

  it('serve --simulate keeps its key across runs (--new-key replaces it), has no pause between an agent\'s jobs by default and says so; settings pause on its data dir agrees, and a pause set holds', { timeout: 60_000 }, async () => {
    const base = tempDir();
    const simulation = join(base, 'simulator');
    // As a real install runs: without the suite's CHATBRIDGE_PAUSE_MS=0.
    const real = childEnv();
    delete real.CHATBRIDGE_PAUSE_MS;
    let keys: string[] = [];
    /** One run; `whileUp` is called with its address and key before it stops. */
    const simulate = async (extra: string[] = [], whileUp: (url: string, key: string) => Promise<void> = async () => {}) => {
      const p = await listening(procs.launch([CLI, 'serve', '--simulate-agents', 'chatgpt=0', '--port', '0', '--data-dir', base, ...extra], real));
      await heldAfter('the banner', Date.now(), async () => SIMULATION_KEY.test(p.out.stdout), 30_000);
      const key = SIMULATION_KEY.exec(p.out.stdout)![1]!;
      keys = [...keys, key];
      await whileUp(p.url, key);
      p.child.kill('SIGINT');
      await p.closed;
      return p.out.stdout;
    };
    const settingsPause = async (args: string[]) => {
      const p = procs.launch([CLI, 'settings', 'pause', ...args, '--data-dir', simulation], real);
      expect(await p.closed).toEqual({ code: 0, signal: null });
      return p.out.stdout;
    };
    expect(await simulate()).toContain(`pause between jobs: none (simulated sites cannot ban; ${CLI_NAME} settings pause --min 10s sets one)\n`);
    expect(await settingsPause([])).toMatch(/^Pause between jobs: none\./);
    expect(await settingsPause(['--min', '12s'])).toMatch(/^Pause between jobs: at least 12 s/);
    expect(await simulate()).toContain('pause between jobs: at least 12 s, as set');
    // The same key each run, said so; --new-key replaces it, and the old one no longer works.
    expect(new Set(keys).size).toBe(1);
    expect(await simulate(['--new-key'], async (url, key) => {
      expect(key).not.toBe(keys[0]);
      expect((await api(url, keys[0]!, 'GET', '/v1/status')).status).toBe(401);
      expect((await api(url, key, 'GET', '/v1/status')).status).toBe(200);
    })).toContain('API key (both scopes; new, kept for the next runs, --new-key replaces it):\n');
    expect(await simulate()).toContain(`API key (both scopes; the same as the last run, --new-key replaces it):\n${keys.at(-1)}\n`);
    // The real data dir beside it keeps the guard.
    const p = procs.launch([CLI, 'settings', 'pause', '--data-dir', base], real);
    await p.closed;
    expect(p.out.stdout).toMatch(/^Pause between jobs: at least 10 s/);
  });

  it('after a SIGKILL the stale server file neither fools status nor blocks a new serve', async () => {
    const dir = tempDir();
    const first = await serve(['--port', '0', '--data-dir', dir]);
    first.child.kill('SIGKILL');
    expect(await first.closed).toEqual({ code: null, signal: 'SIGKILL' });
    expectUsageError(await cli(['status', '--data-dir', dir]), /not running/);
    const second = await serve(['--port', '0', '--data-dir', dir]);
    expect(JSON.parse((await ok(['status', '--json', '--data-dir', dir])).stdout).devices[0].base_url).toBe(second.url);
    expect(await stopWith(second, 'SIGINT')).toEqual({ code: 0, signal: null });
  });

  it('SIGTERM with a request held open still exits with code 0', async () => {
    const dir = tempDir();
    const { key } = await createKey(dir, 'completions:read,completions:write');
    const server = await serve(['--port', '0', '--data-dir', dir]);
    // No agent exists, so a wait: true job is held open until shutdown.
    const held = api(server.url, key, 'POST', '/v1/completions', { prompt: 'held' }).catch((e: Error) => e);
    await heldAfter('the held job queued', Date.now(), async () => (await api(server.url, key, 'GET', '/v1/status')).body.queue.depth === 1);
    expect(await stopWith(server, 'SIGTERM')).toEqual({ code: 0, signal: null });
    const r = await held;
    expect(r).not.toBeInstanceOf(Error);
    expect((r as Res).status).toBe(504);
  });
});

describe('chatbridge keys', () => {
  let dir: string;
  let server: Running;

  beforeEach(async () => {
    dir = tempDir();
    server = await serve(['--port', '0', '--data-dir', dir]);
  });

  it('keys create prints the key alone on the last line, and the key holds exactly its scopes', async () => {
    const ro = await createKey(dir, 'completions:read');
    const wo = await createKey(dir, 'completions:write');
    const rw = await createKey(dir, 'completions:read,completions:write');
    for (const k of [ro, wo, rw]) {
      const lines = k.stdout.trimEnd().split('\n');
      expect(lines.filter((l) => l.includes(k.key))).toEqual([k.key]);
    }
    expect(new Set([ro.key, wo.key, rw.key]).size).toBe(3);

    // Read-only: reads pass the scope check, writes are 403.
    expect((await api(server.url, ro.key, 'GET', '/v1/status')).status).toBe(200);
    expect((await api(server.url, ro.key, 'GET', '/v1/completions/job_nope')).body.error.code).toBe('NOT_FOUND');
    const roPost = await api(server.url, ro.key, 'POST', '/v1/completions', { prompt: 'x', wait: false, callback_url: CALLBACK });
    expect(roPost.status).toBe(403);
    expect(roPost.body.error.code).toBe('FORBIDDEN');
    expect((await api(server.url, ro.key, 'DELETE', '/v1/completions/job_nope')).status).toBe(403);

    // Write-only: writes work, reads are 403.
    const posted = await api(server.url, wo.key, 'POST', '/v1/completions', { prompt: 'x', wait: false, callback_url: CALLBACK });
    expect(posted.status).toBe(202);
    expect((await api(server.url, wo.key, 'GET', `/v1/completions/${posted.body.id}`)).status).toBe(403);
    expect((await api(server.url, wo.key, 'GET', '/v1/status')).status).toBe(403);

    // Both scopes.
    expect((await api(server.url, rw.key, 'GET', `/v1/completions/${posted.body.id}`)).body.status).toBe('queued');
    expect((await api(server.url, rw.key, 'DELETE', `/v1/completions/${posted.body.id}`)).body.status).toBe('cancelled');
  });

  it('keys list shows every key with its scopes and last use, never the secret', async () => {
    const a = await createKey(dir, 'completions:read');
    const b = await createKey(dir, 'completions:read,completions:write');
    let list = (await ok(['keys', 'list', '--data-dir', dir])).stdout;
    const lines = list.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const lineA = lines.find((l) => l.includes(a.id))!;
    const lineB = lines.find((l) => l.includes(b.id))!;
    expect(lineA).toMatch(/\bactive\b/);
    expect(lineA).toContain('"key-completions:read"');
    expect(lineA).toMatch(/last used -/);
    expect(lineB).toContain('completions:read,completions:write');
    for (const k of [a, b]) {
      expect(list).not.toContain(k.key);
      expect(list).not.toContain(k.key.slice(3, 23));
    }
    // A use shows up as its last use.
    expect((await api(server.url, a.key, 'GET', '/v1/status')).status).toBe(200);
    list = (await ok(['keys', 'list', '--data-dir', dir])).stdout;
    expect(list.split('\n').find((l) => l.includes(a.id))).toMatch(/last used \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
  });

  it('keys revoke makes the key 401 on the running server within one second', async () => {
    const k = await createKey(dir, 'completions:read,completions:write');
    const other = await createKey(dir, 'completions:read');
    expect((await api(server.url, k.key, 'GET', '/v1/status')).status).toBe(200);
    const r = await ok(['keys', 'revoke', k.id, '--data-dir', dir]);
    await withinOneSecond('the revoked key to get 401', r.endedAt, async () => {
      const res = await api(server.url, k.key, 'GET', '/v1/status');
      return res.status === 401 && res.body.error.code === 'UNAUTHORIZED';
    });
    expect((await api(server.url, k.key, 'POST', '/v1/completions', { prompt: 'x', wait: false, callback_url: CALLBACK })).status).toBe(401);
    // Only that key.
    expect((await api(server.url, other.key, 'GET', '/v1/status')).status).toBe(200);
    expect((await ok(['keys', 'list', '--data-dir', dir])).stdout.split('\n').find((l) => l.includes(k.id))).toMatch(/\brevoked\b/);
  });

  it('--expires-in: the key works until the duration passes, then gets 401', async () => {
    const k = await createKey(dir, 'completions:read', ['--expires-in', '2s']);
    const createdAt = Date.now();
    expect((await api(server.url, k.key, 'GET', '/v1/status')).status).toBe(200);
    const ms = await heldAfter('the key to expire', createdAt, async () => (await api(server.url, k.key, 'GET', '/v1/status')).status === 401);
    expect(ms).toBeGreaterThan(1_000);
    expect(ms).toBeLessThan(3_500);
    expect((await ok(['keys', 'list', '--data-dir', dir])).stdout).toMatch(/\bexpired\b/);

    // Longer units are parsed too: 90d is ninety days from now.
    const long = await createKey(dir, 'completions:read', ['--expires-in', '90d']);
    const expires = /expires (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)/.exec(long.stdout)?.[1];
    expect(expires, long.stdout).toBeDefined();
    expect(Math.abs(Date.parse(expires!) - (Date.now() + 90 * 86_400_000))).toBeLessThan(60_000);
    expect((await api(server.url, long.key, 'GET', '/v1/status')).status).toBe(200);
  });
});

describe('caps, rotation, pause and status on a running server', () => {
  let dir: string;
  let key: string;
  let server: Running;

  const status = async () => (await api(server.url, key, 'GET', '/v1/status')).body;
  const submit = (body: Record<string, unknown>) => api(server.url, key, 'POST', '/v1/completions', body);
  const agentsByName = async () =>
    Object.fromEntries(((await status()).devices[0].agents as { id: string; name: string }[]).map((a) => [a.name, a.id]));

  beforeEach(async () => {
    dir = tempDir();
    key = (await createKey(dir, 'completions:read,completions:write')).key;
    server = await scripted(dir, 'chatgpt=2,claude=1');
  });

  it('caps set --provider chatgpt --per-hour 1 is honoured within one second; none lifts it', async () => {
    const r = await ok(['caps', 'set', '--provider', 'chatgpt', '--per-hour', '1', '--data-dir', dir]);
    await withinOneSecond('the chatgpt cap in /v1/status', r.endedAt, async () => (await status()).providers.chatgpt.rate_limit_per_hour === 1);

    const first = await submit({ prompt: 'first [[ms=10]]', provider: 'chatgpt' });
    expect(first.status).toBe(200);
    const refused = await submit({ prompt: 'second', provider: 'chatgpt', wait: false });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('PROVIDER_RATE_LIMITED');
    // With a callback the job is kept and waits.
    const waiting = await submit({ prompt: 'waits [[ms=10]]', provider: 'chatgpt', wait: false, callback_url: CALLBACK });
    expect(waiting.status).toBe(202);
    // Other providers are not capped.
    expect((await submit({ prompt: 'claude [[ms=10]]', provider: 'claude' })).status).toBe(200);
    // The rounds that dispatched the claude job, queued after it, passed the waiting one by.
    expect((await api(server.url, key, 'GET', `/v1/completions/${waiting.body.id}`)).body.status).toBe('queued');
    const s = await status();
    expect(s.providers.chatgpt).toMatchObject({ used_this_hour: 1, rate_limit_per_hour: 1, next_slot_at: expect.any(String) });
    expect(s.queue.depth).toBe(1);

    const lifted = await ok(['caps', 'set', '--provider', 'chatgpt', '--per-hour', 'none', '--data-dir', dir]);
    await withinOneSecond('the waiting chatgpt job to run', lifted.endedAt, async () =>
      (await api(server.url, key, 'GET', `/v1/completions/${waiting.body.id}`)).body.status === 'succeeded',
    );
    expect((await status()).providers.chatgpt.rate_limit_per_hour).toBeNull();
  });

  it('caps set --global caps every provider together', async () => {
    const r = await ok(['caps', 'set', '--global', '--per-hour', '2', '--data-dir', dir]);
    await withinOneSecond('the global cap in /v1/status', r.endedAt, async () => (await status()).global.rate_limit_per_hour === 2);
    expect((await submit({ prompt: 'a [[ms=10]]', provider: 'chatgpt' })).status).toBe(200);
    expect((await submit({ prompt: 'b [[ms=10]]', provider: 'claude' })).status).toBe(200);
    for (const provider of ['claude', 'chatgpt', null]) {
      const refused = await submit({ prompt: 'c', provider, wait: false });
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('PROVIDER_RATE_LIMITED');
    }
    expect((await status()).global).toMatchObject({ used_this_hour: 2, rate_limit_per_hour: 2 });
  });

  it('caps set --agent ID caps one agent: its jobs go to the other agent of the provider', async () => {
    const ids = await agentsByName();
    expect(Object.keys(ids).sort()).toEqual(['chatgpt-1', 'chatgpt-2', 'claude-1']);
    const r = await ok(['caps', 'set', '--agent', ids['chatgpt-1']!, '--per-hour', '0', '--data-dir', dir]);
    await withinOneSecond('the agent cap in /v1/status', r.endedAt, async () =>
      (await status()).devices[0].agents.some((a: any) => a.id === ids['chatgpt-1'] && a.rate_limit_per_hour === 0),
    );
    for (let i = 0; i < 3; i++) {
      const done = await submit({ prompt: `job ${i} [[ms=10]]`, provider: 'chatgpt' });
      expect(done.status).toBe(200);
      expect(done.body.agent_id).toBe(ids['chatgpt-2']);
    }
    const r2 = await ok(['caps', 'set', '--agent', ids['claude-1']!, '--per-hour', '0', '--data-dir', dir]);
    await withinOneSecond('the claude agent cap', r2.endedAt, async () => {
      const refused = await submit({ prompt: 'claude', provider: 'claude', wait: false });
      return refused.status === 503 && refused.body.error.code === 'PROVIDER_RATE_LIMITED';
    });
  });

  it('rotation set least_used shows in /v1/status and decides where provider-less jobs run', async () => {
    const ids = await agentsByName();
    const r = await ok(['rotation', 'set', 'least_used', '--data-dir', dir]);
    expect(r.stdout).toContain('least_used');
    await withinOneSecond('rotation in /v1/status', r.endedAt, async () => (await status()).rotation === 'least_used');
    // Two jobs each on chatgpt-1 and claude-1; chatgpt-2 has none.
    for (const name of ['chatgpt-1', 'chatgpt-1', 'claude-1', 'claude-1']) {
      expect((await submit({ prompt: `pinned [[ms=5]]`, agent_id: ids[name] })).status).toBe(200);
    }
    // least_used sends both to chatgpt-2 (round robin would go on to chatgpt-1, then claude-1).
    for (let i = 0; i < 2; i++) {
      const done = await submit({ prompt: `auto ${i} [[ms=5]]` });
      expect(done.body.agent_id).toBe(ids['chatgpt-2']);
    }
    expect((await ok(['status', '--data-dir', dir])).stdout).toMatch(/rotation least_used/);
  });

  it('pause makes wait:false without callback 503 NO_DEVICE_ONLINE within one second; resume undoes it', async () => {
    const running = await submit({ prompt: 'running [[ms=1500]]', provider: 'claude', wait: false, callback_url: CALLBACK });
    await heldAfter('the job to run', Date.now(), async () => (await status()).agents.busy === 1);
    const r = await ok(['pause', '--data-dir', dir]);
    await withinOneSecond('NO_DEVICE_ONLINE', r.endedAt, async () => {
      const res = await submit({ prompt: 'now?', wait: false });
      return res.status === 503 && res.body.error.code === 'NO_DEVICE_ONLINE';
    });
    expect((await status()).devices[0]).toMatchObject({ paused: true, online: false });
    expect((await ok(['status', '--data-dir', dir])).stdout).toMatch(/PAUSED/);
    // Jobs that may wait are kept, and wait.
    const kept = await submit({ prompt: 'kept [[ms=10]]', wait: false, callback_url: CALLBACK });
    expect(kept.status).toBe(202);
    await sleep(500);
    expect((await api(server.url, key, 'GET', `/v1/completions/${kept.body.id}`)).body.status).toBe('queued');

    // The job that was running when paused finishes.
    expect((await api(server.url, key, 'GET', `/v1/completions/${running.body.id}?wait=true`)).body.status).toBe('succeeded');
    expect((await api(server.url, key, 'GET', `/v1/completions/${kept.body.id}`)).body.status).toBe('queued');

    const resumed = await ok(['resume', '--data-dir', dir]);
    await withinOneSecond('the kept job to run after resume', resumed.endedAt, async () =>
      (await api(server.url, key, 'GET', `/v1/completions/${kept.body.id}`)).body.status === 'succeeded',
    );
    const now = await submit({ prompt: 'now [[ms=10]]', wait: false });
    expect(now.status).toBe(202);
    expect((await status()).devices[0]).toMatchObject({ paused: false, online: true });
  });

  it('status prints the figures; status --json is the /v1/status report', async () => {
    // One chatgpt agent busy, two gemini jobs queued (there is no gemini agent).
    const busy = await submit({ prompt: 'busy [[ms=4000]]', provider: 'chatgpt', wait: false, callback_url: CALLBACK });
    expect(busy.status).toBe(202);
    for (let i = 0; i < 2; i++) {
      expect((await submit({ prompt: `gemini ${i}`, provider: 'gemini', wait: false, callback_url: CALLBACK })).status).toBe(202);
    }
    await heldAfter('the busy job to run', Date.now(), async () => (await status()).agents.busy === 1);

    const text = (await ok(['status', '--data-dir', dir])).stdout;
    expect(text).toContain(`ChatBridge at ${server.url}: running`);
    expect(text).toMatch(/^Queue: +2 queued, oldest since \d\d:\d\d:\d\d \((\d+ (s|min) ago|now)\)$/m);
    expect(text).toMatch(/^Agents: +2 idle, 1 busy, 3 in all; rotation round_robin$/m);
    expect(text).toMatch(/^Global: +\d+ used this hour, no cap$/m);
    expect(text).not.toMatch(/cap no cap/);
    expect(text).toMatch(/^chatgpt +1\/2 +1 +- /m);
    expect(text).toMatch(/^claude +1\/1 +0 +- /m);
    expect(text).toMatch(/^gemini +0\/0 +0 +- /m);
    expect(text).toMatch(/agt_\S+ +chatgpt +busy .*"chatgpt-1"|agt_\S+ +chatgpt +busy .*"chatgpt-2"/);
    expect(text).toMatch(/"claude-1"/);

    const json = JSON.parse((await ok(['status', '--json', '--data-dir', dir])).stdout);
    expect(json).toMatchObject({
      queue: { depth: 2, oldest_queued_at: expect.any(String) },
      agents: { idle: 2, busy: 1, total: 3 },
      providers: {
        chatgpt: { agents_idle: 1, agents_total: 2, used_this_hour: 1, rate_limit_per_hour: null },
        claude: { agents_idle: 1, agents_total: 1, used_this_hour: 0 },
        gemini: { agents_total: 0 },
      },
      rotation: 'round_robin',
    });
    expect(Object.keys(json.providers).sort()).toEqual(['chatgpt', 'claude', 'deepseek', 'gemini', 'perplexity', 'qwen']);
  });
});

describe('retention, deleting jobs and usage on a running server', () => {
  let dir: string;
  let key: string;
  let server: Running;

  const submit = (body: Record<string, unknown>) => api(server.url, key, 'POST', '/v1/completions', body);
  const get = (id: string) => api(server.url, key, 'GET', `/v1/completions/${id}`);
  const adminState = async () => (await api(server.url, readFileSync(join(dir, 'admin-token'), 'utf8').trim(), 'GET', '/admin/v1/state')).body;

  beforeEach(async () => {
    dir = tempDir();
    key = (await createKey(dir, 'completions:read,completions:write')).key;
    server = await scripted(dir, 'chatgpt=1,claude=1');
  });

  it('settings retention shows the period (90 days by default), sets it, and the server has it within one second', async () => {
    expect((await ok(['settings', 'retention', '--data-dir', dir])).stdout).toMatch(/^Retention: 90 days\./);
    const set = await ok(['settings', 'retention', '--days', '7', '--data-dir', dir]);
    expect(set.stdout).toMatch(/^Retention: 7 days\. Prompts and answers of jobs that finished longer ago are removed/);
    await withinOneSecond('retention_days 7 in the dashboard state', set.endedAt, async () => (await adminState()).settings.retention_days === 7);
    const none = await ok(['settings', 'retention', '--days', 'none', '--data-dir', dir]);
    expect(none.stdout).toMatch(/^Retention: none\./);
    await withinOneSecond('retention_days null in the dashboard state', none.endedAt, async () => (await adminState()).settings.retention_days === null);
    expectUsageError(await cli(['settings', 'retention', '--days', '0', '--data-dir', dir]), /from 1 to 3650/);
  });

  it('jobs delete refuses a running job and deletes a finished one (404 after); jobs purge deletes finished jobs before a date and says how many', async () => {
    const done = [];
    for (const prompt of ['one', 'two', 'three']) done.push((await submit({ prompt, provider: 'claude' })).body.id as string);
    const running = (await submit({ prompt: '[[hang]]', provider: 'chatgpt', wait: false, callback_url: CALLBACK })).body.id as string;

    // Each job's diagnostic bundle goes with it; the running job's stays.
    const bundle = (id: string) => join(dir, 'diagnostics', `${id}-1`);
    for (const id of [...done, running]) mkdirSync(bundle(id), { recursive: true });
    expectUsageError(await cli(['jobs', 'delete', running, '--data-dir', dir]), /is (queued|dispatched): cancel it first/);
    expect((await get(running)).status).toBe(200);
    expect((await ok(['jobs', 'delete', done[0]!, '--data-dir', dir])).stdout).toBe(`Deleted ${done[0]}, with its attempts and webhook log.\n`);
    expect((await get(done[0]!)).status).toBe(404);
    expect([...done, running].map((id) => existsSync(bundle(id)))).toEqual([false, true, true, true]);
    expectUsageError(await cli(['jobs', 'delete', done[0]!, '--data-dir', dir]), /No job/);

    // Nothing finished before yesterday; everything finished before tomorrow.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    expect((await ok(['jobs', 'purge', '--before', day(-1), '--data-dir', dir])).stdout).toMatch(/^Deleted 0 finished jobs \(finished before /);
    const purged = await ok(['jobs', 'purge', '--before', day(1), '--data-dir', dir]);
    expect(purged.stdout).toMatch(/^Deleted 2 finished jobs \(finished before \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)/);
    expect((await Promise.all(done.map(get))).map((r) => r.status)).toEqual([404, 404, 404]);
    expect((await get(running)).body.status).toBe('dispatched');
    expect([...done, running].map((id) => existsSync(bundle(id)))).toEqual([false, false, false, true]);
    expectUsageError(await cli(['jobs', 'purge', '--before', '2026-02-30', '--data-dir', dir]), /Not a date/);
    expectUsageError(await cli(['jobs', 'purge', '--data-dir', dir]), /--before/);
  });

  it('usage prints a table by provider, agent or key, and --json for scripts', async () => {
    for (const prompt of ['a', 'b']) expect((await submit({ prompt, provider: 'chatgpt' })).status).toBe(200);
    expect((await submit({ prompt: '[[fail=rejected]]', provider: 'claude' })).status).toBe(502);

    const json = JSON.parse((await ok(['usage', '--json', '--data-dir', dir])).stdout);
    expect(json).toMatchObject({ by: 'provider', totals: { jobs: 3, succeeded: 2, failed: 1, failures: { PROMPT_REJECTED: 1 } } });
    expect(json.groups.map((g: { id: string; figures: { jobs: number } }) => [g.id, g.figures.jobs])).toEqual([['chatgpt', 2], ['claude', 1]]);
    expect(json.groups[0].figures.run_ms).toEqual({ p50: expect.any(Number), p95: expect.any(Number) });

    const table = (await ok(['usage', '--since', '1h', '--data-dir', dir])).stdout.split('\n');
    expect(table[0]).toMatch(/^Jobs that finished from .* to .*, by provider:$/);
    expect(table[2]).toMatch(/^provider\s+jobs\s+ok\s+failed\s+cancel\s+expired\s+queue p50\/p95\s+run p50\/p95\s+answer p50\/p95$/);
    expect(table[3]).toMatch(/^ChatGPT\s+2\s+2\s+0\s+0\s+0\s/);
    expect(table[4]).toMatch(/^Claude\s+1\s+0\s+1\s+0\s+0\s.*\s-$/); // no answer: no answer time
    expect(table[5]).toMatch(/^total\s+3\s+2\s+1\s/);
    expect(table).toContain('Failures by code: PROMPT_REJECTED 1');
    // A job sent from the dashboard, with the admin token.
    const token = readFileSync(join(dir, 'admin-token'), 'utf8').trim();
    expect((await api(server.url, token, 'POST', '/v1/completions', { prompt: 'from the dashboard', provider: 'claude' })).status).toBe(200);
    const byKey = (await ok(['usage', '--by', 'key', '--data-dir', dir])).stdout;
    expect(byKey).toMatch(/^key-completions:read,completions:write \(key_\w+\)\s+3\s/m);
    expect(byKey).toMatch(/^admin token \(dashboard\)\s+1\s/m);
    expect((await ok(['usage', '--by', 'agent', '--data-dir', dir])).stdout).toMatch(/^chatgpt-1 \(agt_\w+\)\s+2\s/m);

    expectUsageError(await cli(['usage', '--since', '91d', '--data-dir', dir]), /90 days/);
    expectUsageError(await cli(['usage', '--by', 'model', '--data-dir', dir]), /model/);
  });
});

describe('chatbridge agents', () => {
  let dir: string;
  let key: string;
  let server: Running;

  const agentState = async (id: string) =>
    ((await api(server.url, key, 'GET', '/v1/status')).body.devices[0].agents as { id: string; state: string; name: string }[]).find((a) => a.id === id);

  beforeEach(async () => {
    dir = tempDir();
    key = (await createKey(dir, 'completions:read,completions:write')).key;
    server = await scripted(dir, 'claude=1');
  });

  // Many commands, each a process: room for a loaded machine.
  it('add prints the id and the dashboard link that opens its login; check, rename, pause, enable and remove follow the dashboard', { timeout: 90_000 }, async () => {
    const added = await ok(['agents', 'add', 'chatgpt', '--name', 'Work GPT', '--data-dir', dir]);
    const id = /Added (agt_\w+) "Work GPT" \(ChatGPT\)/.exec(added.stdout)?.[1];
    expect(id, added.stdout).toBeDefined();
    const token = readFileSync(join(dir, 'admin-token'), 'utf8').trim();
    expect(added.stdout).toContain(`${server.url}/#/agents/${id}/login&token=${token}\n`);

    const listed = await ok(['agents', 'list', '--data-dir', dir]);
    expect(listed.stdout).toMatch(new RegExp(`^${id}  chatgpt +logging_in +"Work GPT"`, 'm'));
    expect(listed.stdout).toMatch(/^agt_\w+  claude +idle +"claude-1"/m);
    const json = JSON.parse((await ok(['agents', 'list', '--json', '--data-dir', dir])).stdout) as { id: string; state: string }[];
    expect(json.map((a) => a.state).sort()).toEqual(['idle', 'logging_in']);

    // The person logged in; check looks again and says so.
    const checked = await ok(['agents', 'check', id!, '--data-dir', dir]);
    expect(checked.stdout).toMatch(new RegExp(`^${id}  chatgpt +idle +"Work GPT"\n$`));
    expect((await agentState(id!))?.state).toBe('idle');

    const renamed = await ok(['agents', 'rename', id!, 'Home GPT', '--data-dir', dir]);
    await withinOneSecond('the new name', renamed.endedAt, async () => (await agentState(id!))?.name === 'Home GPT');
    const paused = await ok(['agents', 'pause', id!, '--data-dir', dir]);
    await withinOneSecond('the agent paused', paused.endedAt, async () => (await agentState(id!))?.state === 'paused');
    const enabled = await ok(['agents', 'enable', id!, '--data-dir', dir]);
    await withinOneSecond('the agent enabled', enabled.endedAt, async () => (await agentState(id!))?.state === 'idle');

    await ok(['agents', 'remove', id!, '--data-dir', dir]);
    expect(await agentState(id!)).toBeUndefined();
    expectUsageError(await cli(['agents', 'check', id!, '--data-dir', dir]), new RegExp(`No agent ${id}`));
  });

  it('set --pause and --proxy reach the running server within one second, the proxy shown masked; settings pause sets the global one', { timeout: 60_000 }, async () => {
    const id = (JSON.parse((await ok(['agents', 'list', '--json', '--data-dir', dir])).stdout) as { id: string }[])[0]!.id;
    const token = readFileSync(join(dir, 'admin-token'), 'utf8').trim();
    const view = async () => ((await api(server.url, token, 'GET', '/admin/v1/state')).body as { agents: { id: string; pause_ms: number | null; proxy: string | null }[] }).agents.find((a) => a.id === id)!;

    // A password never comes on the command line (ps, shell history): refused, nothing stored.
    expectUsageError(await cli(['agents', 'set', id, '--proxy', 'http://alice:hunter22@10.0.0.2:3128', '--data-dir', dir]), /--proxy: a password on the command line is seen by every user.*--proxy-password-file FILE.*CHATBRIDGE_PROXY_PASSWORD/);
    expect((await view()).proxy).toBeNull();
    const passwordFile = join(dir, 'proxy-password');
    writeFileSync(passwordFile, 'hunter22\n');
    const set = await ok(['agents', 'set', id, '--pause', '25s', '--proxy', 'http://alice@10.0.0.2:3128', '--proxy-password-file', passwordFile, '--data-dir', dir]);
    expect(set.stdout).toBe(`${id} pauses at least 25 s between jobs.\n${id} goes through http://a…:••••@10.0.0.2:3128; a running server restarts its browser.\n`);
    await withinOneSecond('the pause and the proxy', set.endedAt, async () => {
      const a = await view();
      return a.pause_ms === 25_000 && a.proxy === 'http://a…:••••@10.0.0.2:3128';
    });
    const listed = (await ok(['agents', 'list', '--data-dir', dir])).stdout;
    expect(listed).toMatch(/pause 25 s {2}proxy http:\/\/a…:••••@10\.0\.0\.2:3128/);
    expect(listed).not.toContain('hunter22');

    // The environment's password (its encoding into the stored URL: test/unit/proxy-option.test.ts).
    await ok(['agents', 'set', id, '--proxy', 'http://bob@10.0.0.3:3128', '--data-dir', dir], { CHATBRIDGE_PROXY_PASSWORD: 'p@ss:word' });
    await withinOneSecond('the proxy from the environment', Date.now(), async () => (await view()).proxy === 'http://b…:••••@10.0.0.3:3128');
    expectUsageError(await cli(['agents', 'set', id, '--proxy', 'http://10.0.0.2:3128', '--proxy-password-file', passwordFile, '--data-dir', dir]), /--proxy-password-file: the proxy names no user/);
    expectUsageError(await cli(['agents', 'set', id, '--proxy', 'http://alice@10.0.0.2:3128', '--proxy-password-file', join(dir, 'nothing-here'), '--data-dir', dir]), /--proxy-password-file: cannot read .*nothing-here \(ENOENT\)/);
    expectUsageError(await cli(['agents', 'set', id, '--proxy', 'socks5://u:hunter22@h:1080', '--data-dir', dir]), /--proxy: Chromium cannot log in to a SOCKS5 proxy/);
    expectUsageError(await cli(['agents', 'set', id, '--pause', 'soon', '--data-dir', dir]), /--pause takes a pause such as 20s/);
    expectUsageError(await cli(['agents', 'set', id, '--data-dir', dir]), /agents set ID \[--pause/);
    const back = await ok(['agents', 'set', id, '--pause', 'default', '--proxy', 'none', '--data-dir', dir]);
    await withinOneSecond('no pause or proxy of its own', back.endedAt, async () => {
      const a = await view();
      return a.pause_ms === null && a.proxy === null;
    });

    expect((await ok(['settings', 'pause', '--data-dir', dir])).stdout).toMatch(/^Pause between jobs: none\./); // the suite's CHATBRIDGE_PAUSE_MS=0
    const global = await ok(['settings', 'pause', '--min', '12s', '--data-dir', dir]);
    expect(global.stdout).toMatch(/^Pause between jobs: at least 12 s, plus up to 6 s at random/);
    await withinOneSecond('the global pause', global.endedAt, async () => (await api(server.url, token, 'GET', '/admin/v1/state')).body.settings.pause_ms === 12_000);
    expectUsageError(await cli(['settings', 'pause', '--days', '3', '--data-dir', dir]), /settings pause \[--min 10s\]/);
  });

  it('remove is refused while the agent runs a job, as in the dashboard', async () => {
    const claude = (await agentState((JSON.parse((await ok(['agents', 'list', '--json', '--data-dir', dir])).stdout) as { id: string }[])[0]!.id))!;
    const held = api(server.url, key, 'POST', '/v1/completions', { prompt: 'p [[hang]]', provider: 'claude' });
    await heldAfter('the job running', Date.now(), async () => (await agentState(claude.id))?.state === 'busy');
    expectUsageError(await cli(['agents', 'remove', claude.id, '--data-dir', dir]), /running a job/);
    expect(await agentState(claude.id)).toBeDefined();
    await stopWith(server, 'SIGTERM');
    await held.catch(() => {});
  });

  it('add, remove and check say the server must run; list works without it, and creates nothing', { timeout: 60_000 }, async () => {
    await stopWith(server, 'SIGTERM');
    expectUsageError(await cli(['agents', 'add', 'claude', '--data-dir', dir]), /not running/);
    expect((await ok(['agents', 'list', '--data-dir', dir])).stdout).toMatch(/^agt_\w+  claude +not running +"claude-1"\n$/);
    const fresh = join(tempDir(), 'never-made');
    expectUsageError(await cli(['agents', 'list', '--data-dir', fresh]), /Nothing is set up/);
    expect(existsSync(fresh)).toBe(false);
  });
});

describe('help', () => {
  it('chatbridge --help lists serve --simulate and its options; serve --help and agents --help work', async () => {
    const [top, serveHelp, agentsHelp] = await Promise.all([ok(['--help']), ok(['serve', '--help']), ok(['agents', '--help'])]);
    expect(top.stdout).toMatch(/--simulate-agents P=N/);
    expect(top.stdout).toMatch(/^  chatbridge agents list .*agents add PROVIDER/m);
    expect(serveHelp.stdout).toMatch(/^chatbridge serve .*--simulate/);
    expect(serveHelp.stdout).toMatch(/--simulate-agents P=N/);
    expect(agentsHelp.stdout).toMatch(/^chatbridge agents list/);
  });
});

describe('user mistakes: one line on stderr, no stack trace, non-zero exit', () => {
  const cases: [string, (dir: string) => string[], RegExp?][] = [
    ['an unknown command', () => ['frobnicate'], /frobnicate/],
    ['an unknown flag', (d) => ['keys', 'list', '--bogus', '--data-dir', d], /--bogus/],
    ['an unknown flag of serve', (d) => ['serve', '--prot', '0', '--data-dir', d], /--prot/],
    ['caps set without a target', (d) => ['caps', 'set', '--per-hour', '3', '--data-dir', d]],
    ['caps set with two targets', (d) => ['caps', 'set', '--global', '--provider', 'claude', '--per-hour', '3', '--data-dir', d]],
    ['caps set without --per-hour', (d) => ['caps', 'set', '--global', '--data-dir', d], /--per-hour/],
    ['--per-hour abc', (d) => ['caps', 'set', '--provider', 'chatgpt', '--per-hour', 'abc', '--data-dir', d], /abc/],
    ['an unknown provider', (d) => ['caps', 'set', '--provider', 'bard', '--per-hour', '3', '--data-dir', d], /bard/],
    ['an unknown agent', (d) => ['caps', 'set', '--agent', 'agt_nope', '--per-hour', '3', '--data-dir', d], /agt_nope/],
    ['rotation set bogus', (d) => ['rotation', 'set', 'bogus', '--data-dir', d], /bogus/],
    ['keys revoke of an unknown id', (d) => ['keys', 'revoke', 'key_doesnotexist', '--data-dir', d], /key_doesnotexist/],
    ['keys create without a name', (d) => ['keys', 'create', '--scopes', 'completions:read', '--data-dir', d]],
    ['keys create with an unknown scope', (d) => ['keys', 'create', '--name', 'n', '--scopes', 'admin', '--data-dir', d], /admin/],
    ['keys create --expires-in 5x', (d) => ['keys', 'create', '--name', 'n', '--scopes', 'completions:read', '--expires-in', '5x', '--data-dir', d], /5x/],
    ['status with no server running', (d) => ['status', '--data-dir', d]],
    ['serve --port abc', (d) => ['serve', '--port', 'abc', '--data-dir', d], /abc/],
    // Not node's "argument is ambiguous": the cap's own rule.
    ['--per-hour -1', (d) => ['caps', 'set', '--global', '--per-hour', '-1', '--data-dir', d], /--per-hour takes a whole number or "none", not "-1"/],
    ['agents add of an unknown provider', (d) => ['agents', 'add', 'bard', '--data-dir', d], /chatgpt, claude/],
    ['agents rename without a name', (d) => ['agents', 'rename', 'agt_x', '--data-dir', d], /rename ID NAME/],
  ];

  it.each(cases)('%s', async (_label, args, message) => {
    const dir = tempDir();
    const r = await cli(args(dir));
    expectUsageError(r, message);
    expect(r.stdout).toBe('');
  });

  it('read-only commands on a data dir that does not exist say so and leave none behind', async () => {
    const dir = join(tempDir(), 'nothing-here');
    for (const args of [['keys', 'list'], ['status'], ['webhooks', 'log', 'job_x'], ['agents', 'list']]) {
      expectUsageError(await cli([...args, '--data-dir', dir]));
      expect(existsSync(dir), args.join(' ')).toBe(false);
    }
  });

  it('a --data-dir that is a regular file', async () => {
    const file = join(tempDir(), 'not-a-dir');
    writeFileSync(file, 'x');
    expectUsageError(await cli(['keys', 'list', '--data-dir', file]));
  });

  it('a second serve on the same data dir is refused, and the first keeps serving', async () => {
    const dir = tempDir();
    const { key } = await createKey(dir, 'completions:read');
    const first = await serve(['--port', '0', '--data-dir', dir]);
    const second = await cli(['serve', '--port', '0', '--data-dir', dir]);
    expectUsageError(second, /already running/);
    expect(second.stdout).toBe('');
    expect((await api(first.url, key, 'GET', '/v1/status')).status).toBe(200);
    // The refused one did not take the data dir from the running one.
    expect(JSON.parse((await ok(['status', '--json', '--data-dir', dir])).stdout).devices[0].base_url).toBe(first.url);
  });

  it('serve on a port already in use', async () => {
    const blocker: NetServer = createServer();
    await new Promise<void>((res) => blocker.listen(0, '127.0.0.1', res));
    try {
      const port = (blocker.address() as { port: number }).port;
      const dir = tempDir();
      const r = await cli(['serve', '--port', String(port), '--data-dir', dir]);
      expectUsageError(r, new RegExp(`${port}.*choose one with --port N, or --port 0 for any free port`));
      // Started by npm start, the flag goes after --.
      const npmStart = { npm_lifecycle_event: 'start', npm_lifecycle_script: 'node bin/chatbridge.js start' };
      expectUsageError(await cli(['serve', '--port', String(port), '--data-dir', dir], npmStart), /choose one with npm start -- --port N, or npm start -- --port 0 for any free port/);
      // It left nothing claiming the data dir.
      expectUsageError(await cli(['status', '--data-dir', dir]), /not running/);
    } finally {
      await new Promise((res) => blocker.close(res));
    }
  });

  it('commands started together on a fresh data dir all succeed (one of them finds the schema half made)', async () => {
    // Another ChatBridge process is creating the database right now: it holds the write
    // lock. Commands started meanwhile must wait for it and then use the schema it made.
    const dir = tempDir();
    const holder = new Database(join(dir, 'chatbridge.db'));
    holder.pragma('journal_mode = WAL');
    holder.exec('BEGIN IMMEDIATE');
    const runs = ['a', 'b', 'c'].map((name) => cli(['keys', 'create', '--name', name, '--scopes', 'completions:read', '--data-dir', dir]));
    await sleep(1_500);
    holder.exec('ROLLBACK');
    holder.close();
    const results = await Promise.all(runs);
    for (const r of results) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout.trimEnd().split('\n').pop()).toMatch(KEY_SHAPE);
    }
    expect((await ok(['keys', 'list', '--data-dir', dir])).stdout.trimEnd().split('\n')).toHaveLength(3);
  });
});
