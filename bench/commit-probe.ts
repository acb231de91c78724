/**
 * Instrumentation for bench/submit-and-get, loaded into the service's process with
 * `node --import <this file> …` so that the service's files stay untouched.
 * - It wraps GroupCommit's flush (one SQLite transaction per group of submissions) and counts
 *   groups, their sizes and the time each commit held the event loop (the inserts, the
 *   writes of the log and any automatic WAL checkpoint), and WalSync's flushes of the log
 *   (each an fdatasync on libuv's thread pool, covering the groups committed before it).
 * - It watches the event loop's delay, garbage-collection pauses and each request's time
 *   inside the server (request parsed -> response handed to the kernel), to tell a stall in
 *   the server from one outside it.
 * On SIGUSR2 it prints what it saw since the previous report, as one line
 * `commit-probe {json}`, and starts over. Its own cost: a few clock reads per group commit
 * and per request; the bench loads it into the bare routes' process as well, so that the
 * per-request part is charged to both targets, not to the service alone.
 */
import http from 'node:http';
import { PerformanceObserver, createHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { GroupCommit } from '../main/storage/sqlite/group-commit.js';
import { WalSync } from '../main/storage/sqlite/wal-sync.js';

interface Flushable {
  pending: unknown[];
  log: { busy: boolean } | null;
  flush(): void;
}

const SLOW_MS = 20;
const fresh = () => ({ groups: 0, items: 0, ms: 0, maxMs: 0, maxGroup: 0, slow: 0, logFlushes: 0 });
let commits = fresh();
const proto = GroupCommit.prototype as unknown as Flushable;
const flush = proto.flush;
const logProto = WalSync.prototype as unknown as { flush(): void };
const logFlush = logProto.flush;
if (typeof flush !== 'function' || typeof logFlush !== 'function') throw new Error('commit-probe: no GroupCommit or WalSync flush to wrap');

logProto.flush = function (this: unknown): void {
  commits.logFlushes++;
  logFlush.call(this);
};

proto.flush = function (this: Flushable): void {
  // A flush called while the log is flushed waits for it: no commit yet.
  if (this.log?.busy) return flush.call(this);
  const size = this.pending.length;
  const started = performance.now();
  try {
    flush.call(this);
  } finally {
    const took = performance.now() - started;
    commits.groups++;
    commits.items += size;
    commits.ms += took;
    commits.maxMs = Math.max(commits.maxMs, took);
    commits.maxGroup = Math.max(commits.maxGroup, size);
    if (took >= SLOW_MS) commits.slow++;
  }
};

const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
let gc = { count: 0, ms: 0, maxMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gc.count++;
    gc.ms += entry.duration;
    gc.maxMs = Math.max(gc.maxMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

// Server-side latency of each HTTP request: from the 'request' event (headers parsed) to
// the 'finish' of its response (handed to the kernel).
const served = createHistogram();
const emit = http.Server.prototype.emit as (this: http.Server, event: string, ...args: unknown[]) => boolean;
http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]): boolean {
  if (event === 'request') {
    const started = process.hrtime.bigint();
    (args[1] as http.ServerResponse).once('finish', () => served.record(Math.max(1, Number((process.hrtime.bigint() - started) / 1000n))));
  }
  return emit.call(this, event, ...args);
} as typeof http.Server.prototype.emit;

process.on('SIGUSR2', () => {
  const report = {
    ...commits,
    loopP99Ms: loop.percentile(99) / 1e6,
    loopMaxMs: loop.max / 1e6,
    gcCount: gc.count,
    gcMs: gc.ms,
    gcMaxMs: gc.maxMs,
    servedP50Ms: served.count ? served.percentile(50) / 1000 : 0,
    servedP99Ms: served.count ? served.percentile(99) / 1000 : 0,
    servedMaxMs: served.count ? served.max / 1000 : 0,
  };
  served.reset();
  commits = fresh();
  loop.reset();
  gc = { count: 0, ms: 0, maxMs: 0 };
  process.stdout.write(`commit-probe ${JSON.stringify(report)}\n`);
});
