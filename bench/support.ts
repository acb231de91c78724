/**
 * Shared pieces of the benchmarks: start a server in its own process and wait for its
 * "listening on" line, make API keys, drive load with autocannon, read a process's memory
 * and CPU from /proc, time the file system's fsync, percentiles and aligned printing.
 */
import autocannon, { type Request, type Result } from 'autocannon';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readFileSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../main/core/clock.js';
import { randomIds } from '../main/core/ids.js';
import { openDatabase } from '../main/storage/sqlite/db.js';
import { SqliteAccountStore } from '../main/storage/sqlite/account-store.js';
import { SqliteKeyStore } from '../main/storage/sqlite/key-store.js';
import { countOtherLoad, processTable } from './other-load.js';
import type { Scope } from '../main/contract/enumerations.js';

// Every benchmark times the service, not the pause between an agent's jobs (a guard against
// bans, 10 s by default): this process and the servers it starts run without it, whether
// the benchmark runs alone or through run-all.ts. Set CHATBRIDGE_PAUSE_MS to time a pause.
process.env.CHATBRIDGE_PAUSE_MS ??= '0';

/** The repository root (this file runs as dist/bench/support.js). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SCRIPTED_SERVER = join(ROOT, 'dist/test/support/scripted-server.js');
export const CLI = join(ROOT, 'bin/chatbridge.js');
export const BARE_SERVER = join(ROOT, 'dist/bench/bare-server.js');
export const COMMIT_PROBE = join(ROOT, 'dist/bench/commit-probe.js');

// ---- data dirs ----------------------------------------------------------------------------

const FS_NAMES: Record<number, string> = { 0xef53: 'ext4', 0x01021994: 'tmpfs', 0x58465342: 'xfs', 0x9123683e: 'btrfs', 0x794c7630: 'overlayfs' };

/** Data dirs made here; removed when this process exits. */
const dataDirs = new Set<string>();

/** A fresh data dir under the OS temp dir (on this machine /tmp is the disk, not tmpfs). */
export function tempDataDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `chatbridge-bench-${label}-`));
  dataDirs.add(dir);
  return dir;
}

/** The file system a directory is on, by name when known. */
export function fsKind(dir: string): string {
  const type = Number(statfsSync(dir).type);
  return FS_NAMES[type] ?? `0x${type.toString(16)}`;
}

export function removeDir(dir: string): void {
  dataDirs.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

// ---- processes ----------------------------------------------------------------------------

/** Servers started here; killed if this process exits without stopping them. */
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

export interface Server {
  url: string;
  pid: number;
  process: ChildProcess;
  /** Resolves with the next stdout line that matches, after sending `signal` if given. */
  nextLine(match: RegExp, signal?: NodeJS.Signals, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then SIGKILL if it has not exited after 10 s. */
  stop(): Promise<void>;
}

/**
 * Runs `node [nodeArgs] script args…` in its own process (with `env` added to this one's)
 * and resolves once it printed
 * "listening on URL". The child's stderr is kept to explain a failed start.
 */
export function startServer(script: string, args: string[], options: { nodeArgs?: string[]; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<Server> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: ROOT, env: { ...process.env, ...options.env } });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lineListeners = new Set<(line: string) => void>();
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) for (const l of [...lineListeners]) l(line);
  });
  const nextLine = (match: RegExp, signal?: NodeJS.Signals, waitMs = 10_000) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        lineListeners.delete(listener);
        reject(new Error(`${basename(script)} printed no line matching ${match} within ${waitMs} ms. stderr:\n${stderr}`));
      }, waitMs);
      const listener = (line: string) => {
        if (!match.test(line)) return;
        clearTimeout(timer);
        lineListeners.delete(listener);
        resolve(line);
      };
      lineListeners.add(listener);
      if (signal) child.kill(signal);
    });
  return new Promise<Server>((resolve, reject) => {
    const failed = (code: number | null, signal: string | null) =>
      reject(new Error(`${basename(script)} exited (${code ?? signal}) before listening. stderr:\n${stderr}`));
    child.once('exit', failed);
    nextLine(/^listening on \S+/, undefined, timeoutMs).then(
      (line) => {
        child.off('exit', failed);
        resolve({
          url: /^listening on (\S+)/.exec(line)![1]!,
          pid: child.pid!,
          process: child,
          nextLine,
          async stop() {
            if (child.exitCode !== null || child.signalCode !== null) return;
            child.kill('SIGTERM');
            const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
            await exited;
            clearTimeout(killer);
          },
        });
      },
      (error: Error) => {
        child.kill('SIGKILL');
        reject(error);
      },
    );
  });
}

// ---- keys ---------------------------------------------------------------------------------

/**
 * Creates `count` API keys in the data dir's database, in-process and before the server
 * starts (one transaction; the CLI would cost a process per key). Returns the secrets.
 */
export async function createKeys(dataDir: string, count: number, scopes: Scope[] = ['completions:read', 'completions:write']): Promise<string[]> {
  const db = openDatabase(dataDir);
  try {
    const keys = new SqliteKeyStore(db, new SqliteAccountStore(db, systemClock, randomIds), systemClock, randomIds);
    // SQLite's create inserts before it returns its promise, so the inserts share this transaction.
    const created = db.transaction(() => Array.from({ length: count }, (_, i) => keys.create({ name: `bench-${i}`, scopes, expiresAt: null })))();
    return (await Promise.all(created)).map((c) => c.secret);
  } finally {
    db.close();
  }
}

/** Hands out keys round-robin, so no key comes near its per-minute budget. */
export class KeyRing {
  private next = 0;
  constructor(readonly keys: string[]) {}
  take(): string {
    const key = this.keys[this.next]!;
    this.next = (this.next + 1) % this.keys.length;
    return key;
  }
}

// ---- HTTP helpers for setup (untimed) -----------------------------------------------------

export interface JsonResponse<T = any> {
  status: number;
  body: T;
  bytes: number;
}

export async function api<T = any>(base: string, method: string, path: string, key: string, body?: unknown): Promise<JsonResponse<T>> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, bytes: Buffer.byteLength(text) };
}

/** Runs `fn` over `items` with at most `concurrency` calls in flight. */
export async function inPool<T, R>(items: T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---- load generation (autocannon) ---------------------------------------------------------

export interface LoadRun {
  result: Result;
  /** Latency in ms of every response but each connection's first, in arrival order. */
  latencies: number[];
  /**
   * Latency of each connection's first response: it also pays the TCP connection set-up
   * and accept, which a client with kept-alive connections pays once. On this 2-core VM
   * that sometimes takes 50-300 ms for 50 simultaneous connects, to a bare server too.
   */
  firstLatencies: number[];
  /** When the first and the last response arrived, ms after the start. */
  firstMs: number;
  /** Responses by HTTP status. */
  statuses: Map<number, number>;
  /**
   * From start to the last response, measured here: autocannon notices the end of an
   * `amount` run only at its next 1 s tick, so its own duration would be padded.
   */
  wallMs: number;
}

/** One autocannon run; `amount` ends it after that many requests, else `duration` seconds. */
export function load(options: { url: string; connections: number; amount?: number; duration?: number; requests: Request[] }): Promise<LoadRun> {
  const latencies: number[] = [];
  const firstLatencies: number[] = [];
  const seen = new Set<unknown>();
  const statuses = new Map<number, number>();
  const started = performance.now();
  let first = NaN;
  let last = started;
  return new Promise((resolve, reject) => {
    const instance = autocannon({ timeout: 30, ...options }, (error, result) => {
      if (error) return reject(error);
      resolve({ result, latencies, firstLatencies, statuses, firstMs: first - started, wallMs: last - started });
    });
    instance.on('response', (client: unknown, status: number, _bytes: number, ms: number) => {
      last = performance.now();
      if (Number.isNaN(first)) first = last;
      if (seen.has(client)) latencies.push(ms);
      else {
        seen.add(client);
        firstLatencies.push(ms);
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    });
  });
}

export function mergeStatuses(into: Map<number, number>, from: Map<number, number>): void {
  for (const [status, n] of from) into.set(status, (into.get(status) ?? 0) + n);
}

/** "2xx only", or the count of each other status, e.g. "202: 8991, 429: 9". */
export function describeStatuses(statuses: Map<number, number>, errors = 0): { non2xx: number; text: string } {
  let non2xx = errors;
  const parts: string[] = [];
  for (const [status, n] of [...statuses].sort((a, b) => a[0] - b[0])) {
    if (status < 200 || status > 299) non2xx += n;
    parts.push(`${status}: ${n}`);
  }
  if (errors) parts.push(`socket errors/timeouts: ${errors}`);
  return { non2xx, text: parts.join(', ') || 'none' };
}

// ---- statistics ---------------------------------------------------------------------------

/** Nearest-rank percentile (p in 0..100) of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function ascending(values: number[]): number[] {
  return Array.from(Float64Array.from(values).sort());
}

export function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
}

// ---- /proc --------------------------------------------------------------------------------

/** Resident memory in KiB (VmRSS of /proc/<pid>/status). */
export function rssKiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]);
}

/** CPU time (user + system) of a process, all its threads, in clock ticks; with `mainThread`, its main thread's alone. */
export function cpuTicks(pid: number, { mainThread = false } = {}): number {
  const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // fields 14 and 15 of stat(5)
}

export function clockTicksPerSecond(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** The soft limit on open files of this process (children inherit it). */
export function openFilesLimit(): number {
  const match = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return !match || match[1] === 'unlimited' ? Infinity : Number(match[1]);
}

/**
 * fdatasync latency of the file system under `dir` for 4 KiB writes: appended (a growing
 * file, as a new WAL: the file system journals the new size too) and overwritten in place
 * (a WAL reused after a checkpoint).
 */
export function fsyncProbe(dir: string, count = 200): { appendMs: number; overwriteMs: number } {
  const file = join(dir, 'fsync-probe.bin');
  const page = Buffer.alloc(4096, 7);
  const run = (offset: (i: number) => number) => {
    const fd = openSync(file, 'w');
    const times: number[] = [];
    try {
      for (let i = 0; i < count; i++) {
        writeSync(fd, page, 0, page.length, offset(i));
        const t = performance.now();
        fdatasyncSync(fd);
        times.push(performance.now() - t);
      }
    } finally {
      closeSync(fd);
      rmSync(file, { force: true });
    }
    return percentile(ascending(times), 50);
  };
  return { appendMs: run((i) => i * page.length), overwriteMs: run(() => 0) };
}

/** Busy share of all CPUs over `windowMs`, from /proc/stat (every process, this one included). */
export async function machineBusy(windowMs = 1000): Promise<number> {
  const read = () => {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3]! + (f[4] ?? 0);
    return { idle, total: f.reduce((a, b) => a + b, 0) };
  };
  const a = read();
  await sleep(windowMs);
  const b = read();
  return 1 - (b.idle - a.idle) / Math.max(1, b.total - a.total);
}

/** `root` and every process below it now (a server's browsers). */
export function tree(root: number): number[] {
  const table = processTable();
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, p] of table) if (p.parent === found[i]) found.push(pid);
  return found;
}

/**
 * Prints the cores and how busy the machine already is before a benchmark starts: on a
 * 2-core machine, another process eating a core halves every figure.
 */
export async function printMachineLoad(): Promise<void> {
  const busy = await machineBusy();
  const cores = availableParallelism();
  const note = busy > 0.1 ? `  WARNING: other processes keep ${(busy * cores).toFixed(1)} of ${cores} cores busy; figures are depressed` : '';
  console.log(`  ${cores} cores, ${(busy * 100).toFixed(0)} % busy before the start, node ${process.version}${note}`);
}

// ---- printing -----------------------------------------------------------------------------

/** Prints rows as aligned columns; the first row is the header. */
export function printTable(rows: string[][], indent = '  '): void {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  rows.forEach((row, i) => {
    console.log(indent + row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('   ').trimEnd());
    if (i === 0) console.log(indent + widths.map((w) => '-'.repeat(w)).join('   '));
  });
}

export function num(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return 'n/a';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).replace(/,/g, ' ');
}

export function ms(n: number): string {
  return Number.isFinite(n) ? `${n.toFixed(n < 10 ? 2 : 1)} ms` : 'n/a';
}

/** "ok" when an aim is met, "MISSED" when not. */
export function verdict(met: boolean): string {
  return met ? 'ok' : 'MISSED';
}

export function heading(title: string): void {
  console.log(`\n=== ${title} ${'='.repeat(Math.max(0, 76 - title.length))}`);
}

/**
 * Runs a benchmark's main and reports a crash. A benchmark still running after `limitMs`
 * (or sent SIGINT/SIGTERM) exits, and its servers are killed on the way out.
 */
export function runMain(main: () => Promise<void>, limitMs = 200_000): void {
  const bail = (why: string) => {
    console.error(`benchmark stopped: ${why}`);
    process.exit(1);
  };
  setTimeout(() => bail(`still running after ${limitMs / 1000} s (a hang?)`), limitMs).unref();
  process.once('SIGINT', () => bail('SIGINT'));
  process.once('SIGTERM', () => bail('SIGTERM'));
  const otherLoad = countOtherLoad();
  const started = performance.now();
  main().then(
    async () => {
      // Where the processes cannot be read, nothing is said of them.
      const others = (await otherLoad.end().catch(() => NaN)) / clockTicksPerSecond();
      if (Number.isNaN(others)) return;
      const share = (others / ((performance.now() - started) / 1000) / availableParallelism()) * 100;
      console.log(
        `  other processes used ${others.toFixed(1)} CPU-seconds during this benchmark (${share.toFixed(0)} % of the machine)` +
          (share > 10 ? ': throughput and latency figures above may be depressed by them' : ''),
      );
    },
    (error: unknown) => {
      console.error(`benchmark crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exitCode = 1;
    },
  );
}
