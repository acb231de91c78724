/**
 * Child processes for the tests that run ChatBridge for real (`bin/chatbridge.js`, the
 * scripted server): each is tracked and SIGKILLed after its test if still alive, and each
 * temp dir is removed. Tests that spawn need dist/ built (`npm test` runs tsc first).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';

export const CLI = join(PACKAGE_ROOT, 'bin/chatbridge.js');
export const SCRIPTED_SERVER = join(PACKAGE_ROOT, 'dist/test/support/scripted-server.js');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Proc {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  closed: Promise<Exit>;
}

export interface Running extends Proc {
  url: string;
}

export const alive = (p: Proc) => p.child.exitCode === null && p.child.signalCode === null;

/** Call at a test file's top level: processes and temp dirs are cleaned after each test. */
export function trackProcesses(tempPrefix: string) {
  const children = new Set<Proc>();
  const dirs: string[] = [];
  afterEach(async () => {
    for (const p of [...children]) {
      if (alive(p)) p.child.kill('SIGKILL');
      await p.closed;
    }
    // A killed server's browsers may still be writing their profiles for a moment.
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  return {
    /**
     * `node ...args` from the repository root, its output collected. `group`: in a process
     * group of its own, as a terminal starts a command, for `ctrlC`.
     */
    launch(args: string[], env: NodeJS.ProcessEnv = process.env, { group = false } = {}): Proc {
      const child = spawn(process.execPath, args, { cwd: PACKAGE_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: group });
      const out = { stdout: '', stderr: '' };
      child.stdout!.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
      const closed = new Promise<Exit>((res) => child.once('close', (code, signal) => res({ code, signal })));
      const proc = { child, out, closed };
      children.add(proc);
      void closed.then(() => children.delete(proc));
      return proc;
    },
    tempDir(): string {
      const d = mkdtempSync(join(tmpdir(), tempPrefix));
      dirs.push(d);
      return d;
    },
  };
}

/** The API key `serve --simulate` prints, in its first group. */
export const SIMULATION_KEY = /^API key \(both scopes.*\n(cb_\S+)\n/m;

/**
 * The key `serve --simulate` prints once its simulated agents are up (`what`: which, for the
 * failure). A start that does not get there within `withinMs` fails with what the process
 * printed so far, which says how far it got.
 */
export async function simulationReady(p: Proc, withinMs: number, what = 'the simulated agents'): Promise<string> {
  const end = Date.now() + withinMs;
  for (;;) {
    const key = SIMULATION_KEY.exec(p.out.stdout)?.[1];
    if (key) return key;
    if (!alive(p)) throw new Error(`exited before ${what} came up: ${p.out.stdout} ${p.out.stderr}`);
    if (Date.now() > end) throw new Error(`${what} not up in ${withinMs} ms; so far the process printed: ${p.out.stdout} ${p.out.stderr}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Ctrl-C as a terminal sends it: SIGINT to every process of the group `p` leads (launched with `group`). */
export function ctrlC(p: Proc): void {
  process.kill(-p.child.pid!, 'SIGINT');
}

/** Waits for a server process's `listening on URL` line. */
export function listening(p: Proc, withinMs = 15_000): Promise<Running> {
  return new Promise<Running>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`no "listening on" in ${withinMs} ms: ${p.out.stdout} ${p.out.stderr}`)), withinMs);
    const check = () => {
      const m = /^listening on (\S+)\n/m.exec(p.out.stdout);
      if (m) {
        clearTimeout(timer);
        res({ ...p, url: m[1]! });
      }
    };
    p.child.stdout!.on('data', check);
    check();
    void p.closed.then((e) => {
      clearTimeout(timer);
      rej(new Error(`exited (${JSON.stringify(e)}) before listening: ${p.out.stderr}`));
    });
  });
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `chatbridge ...args` through the built CLI, run to its end with `home` as its data home
 * (so no real data dir is touched), inheriting neither CHATBRIDGE_DATA_DIR nor
 * CHATBRIDGE_DATABASE_URL unless `env` sets them.
 */
export function runCommand(args: string[], home: string, env: Record<string, string> = {}): Promise<CommandResult> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, XDG_DATA_HOME: home, ...env };
  delete childEnv.CHATBRIDGE_DATA_DIR;
  if (!('CHATBRIDGE_DATABASE_URL' in env)) delete childEnv.CHATBRIDGE_DATABASE_URL;
  return new Promise((resolve) =>
    execFile(process.execPath, [CLI, ...args], { env: childEnv }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );
}
