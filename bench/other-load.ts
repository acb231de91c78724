/**
 * The CPU that processes other than a benchmark and those below it (its servers, their
 * browsers) use while it runs: a benchmark on a busy machine measures the machine.
 *
 * Counting the machine's time less the benchmark's and its reaped children's took the
 * agents' browsers for other load (bench/agents overhead on a machine running nothing else:
 * 10 to 12 CPU-seconds, 26-29 %; counted this way, 0.5): not all of Chromium's time reaches
 * its parent's. So every process is looked at each second, and those that are not the
 * benchmark's own or below it are counted. A look reads every /proc/N/stat (3 to 7 ms with
 * some 80 processes), in a worker thread: on the benchmark's own thread it held up the load
 * generator's replies each second, and with them its latency percentiles. Missed: another
 * process that starts and ends between two looks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/** Every process now: its parent, when it started and its CPU ticks (user + system), by pid. */
export function processTable(): Map<number, { parent: number; started: string; ticks: number }> {
  const table = new Map<number, { parent: number; started: string; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name (field 2) may hold spaces; count fields after its closing parenthesis.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(entry), { parent: Number(f[1]), started: f[19]!, ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/** Starts counting other processes' CPU; `end` says how many ticks they used since. */
export function countOtherLoad(): { end(): Promise<number> } {
  const worker = new Worker(new URL(import.meta.url), { workerData: { benchmark: process.pid } });
  // Not what keeps a benchmark running, until its end asks for the count.
  worker.unref();
  const failed = new Promise<never>((_, reject) => worker.once('error', reject));
  failed.catch(() => {});
  const started = Promise.race([new Promise<void>((resolve) => worker.once('message', () => resolve())), failed]);
  return {
    async end() {
      worker.ref();
      try {
        await started;
        const ticks = new Promise<number>((resolve) => worker.once('message', resolve));
        worker.postMessage('end');
        return await Promise.race([ticks, failed]);
      } finally {
        await worker.terminate();
      }
    },
  };
}

/** The worker: a look now and each second; at 'end', one more, and the other processes' ticks. */
function countInWorker(benchmark: number): void {
  /** By pid and start time: ticks at the first look (0 for one started since), at the last, and whether it was ever the benchmark's. */
  const seen = new Map<string, { first: number; last: number; ours: boolean }>();
  const look = (initial: boolean) => {
    const table = processTable();
    const ours = new Set([benchmark]);
    // A parent's pid is lower than its child's, except after the pids wrap around: again until nothing new.
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, p] of table) {
        if (ours.has(pid) || !ours.has(p.parent)) continue;
        ours.add(pid);
        grew = true;
      }
    }
    for (const [pid, p] of table) {
      const key = `${pid}:${p.started}`;
      const known = seen.get(key);
      if (known) {
        known.last = p.ticks;
        known.ours ||= ours.has(pid);
      } else seen.set(key, { first: initial ? p.ticks : 0, last: p.ticks, ours: ours.has(pid) });
    }
  };
  look(true);
  parentPort!.postMessage('started');
  const timer = setInterval(() => look(false), 1_000);
  parentPort!.once('message', () => {
    clearInterval(timer);
    look(false);
    let ticks = 0;
    for (const p of seen.values()) if (!p.ours) ticks += p.last - p.first;
    parentPort!.postMessage(ticks);
  });
}

if (!isMainThread && (workerData as { benchmark?: number } | null)?.benchmark) countInWorker((workerData as { benchmark: number }).benchmark);
