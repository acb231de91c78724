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
 * `commit-probe {json}`, and starts over. With BENCH_ROUND_PROF=DIR it also profiles its
 * process between the report before each timed round and the one after it (the bench asks
 * for one each side of a round), and writes those stretches together as
 * DIR/NAME-rounds.cpuprofile (NAME: BENCH_PROBE_NAME, `service` by default): the
 * submissions alone, without the untimed work between rounds. Its own cost: a few clock reads per group commit
 * and per request; the bench loads it into the bare routes' process as well, so that the
 * per-request part is charged to both targets, not to the service alone.
 */
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
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

interface CpuProfile {
  nodes: { id: number; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Starts the profiler at one call and stops it at the next, adding each stretch to one profile (node ids made distinct). */
function roundProfiler(dir: string): () => Promise<void> {
  const session = new Session();
  session.connect();
  const merged: CpuProfile = { nodes: [], samples: [], timeDeltas: [], startTime: 0, endTime: 0 };
  let running = false;
  let nextId = 1;
  return async () => {
    running = !running;
    if (running) {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      return;
    }
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    const offset = nextId;
    for (const node of profile.nodes) {
      merged.nodes.push({ ...node, id: node.id + offset, children: node.children?.map((c) => c + offset) });
      nextId = Math.max(nextId, node.id + offset + 1);
    }
    merged.samples.push(...profile.samples.map((id) => id + offset));
    // A stretch's first delta is the time since its start, not since the last stretch's end.
    merged.timeDeltas.push(0, ...profile.timeDeltas.slice(1));
    merged.endTime += profile.endTime - profile.startTime;
    writeFileSync(join(dir, `${process.env.BENCH_PROBE_NAME ?? 'service'}-rounds.cpuprofile`), JSON.stringify(merged));
  };
}

const toggleProfile = process.env.BENCH_ROUND_PROF ? roundProfiler(process.env.BENCH_ROUND_PROF) : null;

process.on('SIGUSR2', async () => {
  // The profiler is running before the report that lets the round start goes out.
  await toggleProfile?.();
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
