/**
 * The real service in its own process (dist/test/support/scripted-server.js: `serve` with
 * scripted agents instead of browsers), to kill, stop and restart on one data dir (what it
 * left there: service-driver.ts's storedJobs). A file calls `serverProcesses()` at its top
 * level: its processes and temp dirs are cleaned after each test.
 *
 * Needs dist/ built (`npm test` builds before `vitest run`).
 */
import { expect } from 'vitest';
import { CLI, listening, SCRIPTED_SERVER, trackProcesses, type Exit, type Running } from './processes.js';

export function serverProcesses(tempPrefix: string) {
  const { launch, tempDir } = trackProcesses(tempPrefix);

  /** `chatbridge keys create …` through the real command line; the key is its last line. */
  async function createKey(dataDir: string, name: string): Promise<string> {
    const p = launch([CLI, 'keys', 'create', '--name', name, '--scopes', 'completions:read,completions:write', '--data-dir', dataDir]);
    const exit = await p.closed;
    expect(exit, p.out.stderr).toEqual({ code: 0, signal: null });
    const key = p.out.stdout.trimEnd().split('\n').pop()!;
    expect(key).toMatch(/^cb_[0-9A-Za-z]{40}$/);
    return key;
  }

  /**
   * `aheadMs`: the restarted service's clock runs that far ahead, as if it had been down that
   * long; `graceMs`: what a clean stop gives the answers under way.
   */
  const startServer = (dataDir: string, agents: string, aheadMs = 0, graceMs = 0): Promise<Server> =>
    listening(launch([SCRIPTED_SERVER, '--data-dir', dataDir, '--port', '0', '--agents', agents, '--ahead-ms', String(aheadMs), '--stop-grace', String(graceMs)]));

  return { tempDir, createKey, startServer };
}

export const CALLBACK = 'https://127.0.0.1:9/hook';

export type Server = Running;

export async function sigkill(server: Server): Promise<void> {
  server.child.kill('SIGKILL');
  expect(await server.closed).toEqual({ code: null, signal: 'SIGKILL' });
}

export async function stopWith(server: Server, signal: NodeJS.Signals, withinMs = 10_000): Promise<Exit> {
  server.child.kill(signal);
  return await Promise.race([
    server.closed,
    new Promise<Exit>((_, rej) => setTimeout(() => rej(new Error(`no exit ${withinMs} ms after ${signal}`)), withinMs)),
  ]);
}

export const sigterm = (server: Server) => stopWith(server, 'SIGTERM');



export interface Res {
  status: number;
  body: any;
}

export async function api(
  url: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Res> {
  const res = await fetch(url + path, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Runs `fn` over `items` with at most `n` in flight. */
export async function inPool<T>(items: T[], n: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

export async function pollUntil<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}


