/**
 * The command line through real processes: `node bin/chatbridge.js …` on temp data dirs,
 * against `chatbridge serve` or, where jobs must run, the scripted server (the same service
 * with scripted agents instead of browsers, in its own process). A file calls `cliRuns()` at
 * its top level: its processes and temp dirs are cleaned after each test, and no command
 * falls back to the real home.
 *
 * Needs dist/ built (`npm test` builds before `vitest run`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { CLI, listening, SCRIPTED_SERVER, trackProcesses, type Exit, type Proc, type Running } from './processes.js';

export const CALLBACK = 'https://127.0.0.1:9/hook';
export const KEY_SHAPE = /^cb_[0-9A-Za-z]{40}$/;

export interface CliResult extends Exit {
  stdout: string;
  stderr: string;
  /** When the process had exited: its change is committed by then. */
  endedAt: number;
}

export function cliRuns() {
  const procs = trackProcesses('chatbridge-cli-');
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

  return {
    tempDir: procs.tempDir,
    /** The environment commands get: `extra` over the suite's, with the temp home. */
    childEnv,
    launch,
    /** A process with exactly `env` (a test of what a real install's environment does). */
    launchWithEnv: (args: string[], env: NodeJS.ProcessEnv): Proc => procs.launch(args, env),
    cli,
    ok,
    createKey,
    serve: (args: string[], env: Record<string, string> = {}) => listening(launch([CLI, 'serve', ...args], env)),
    scripted: (dataDir: string, agents: string) => listening(launch([SCRIPTED_SERVER, '--data-dir', dataDir, '--port', '0', '--agents', agents])),
    /** The scripted server with a key of both scopes it made itself (where how keys are made is not the subject). */
    async scriptedWithKey(dataDir: string, agents: string): Promise<{ server: Running; key: string }> {
      const server = await listening(launch([SCRIPTED_SERVER, '--data-dir', dataDir, '--port', '0', '--agents', agents, '--print-key']));
      const key = /^key (cb_\S+)\n/m.exec(server.out.stdout)?.[1];
      expect(key, server.out.stdout).toMatch(KEY_SHAPE);
      return { server, key: key! };
    },
  };
}

export async function stopWith(server: Running, signal: NodeJS.Signals): Promise<Exit> {
  server.child.kill(signal);
  return await Promise.race([
    server.closed,
    new Promise<Exit>((_, rej) => setTimeout(() => rej(new Error(`no exit 10 s after ${signal}`)), 10_000)),
  ]);
}

export interface Res {
  status: number;
  body: any;
}

/** A request to a server the test started, as a script would send it. */
export async function api(url: string, key: string | null, method: string, path: string, body?: unknown): Promise<Res> {
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

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it holds; returns how long after `since` it first held. */
export async function heldAfter(what: string, since: number, probe: () => Promise<boolean>, timeoutMs = 5_000): Promise<number> {
  for (;;) {
    if (await probe()) return Date.now() - since;
    if (Date.now() - since > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** Asserts a change made by a command that ended at `since` shows within one second. */
export async function withinOneSecond(what: string, since: number, probe: () => Promise<boolean>): Promise<void> {
  const ms = await heldAfter(what, since, probe);
  expect(ms, `${what} took ${ms} ms`).toBeLessThan(1_000);
}

/** A user mistake: one line on stderr starting with "chatbridge:", no stack, non-zero exit. */
export function expectUsageError(r: CliResult, message?: RegExp): void {
  const context = `stdout: ${r.stdout}\nstderr: ${r.stderr}`;
  expect(r.signal, context).toBeNull();
  expect(r.code, context).not.toBe(0);
  expect(r.stderr, context).toMatch(/^chatbridge: [^\n]+\n$/);
  expect(r.stderr, context).not.toMatch(/\n\s+at /);
  if (message) expect(r.stderr).toMatch(message);
}
