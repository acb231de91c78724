/**
 * Jobs with files waiting: the service's memory (VmRSS) while 10 jobs of 50 MiB each wait
 * queued with no agent to take them, against the same service idle. A job's files go to the
 * store with the job and are not kept in the process: aim, under 200 MB above idle. Also the
 * time the store takes to write a 50 MiB job (SQLite, in the job's transaction, fsynced),
 * and how long that write holds the event loop (SQLite writes synchronously).
 * The jobs go in through the completions port (bench/files-server.ts), not HTTP.
 *
 *   node dist/bench/job-files.js
 */
import { join } from 'node:path';
import { ROOT, fsKind, heading, mean, num, printMachineLoad, printTable, removeDir, rssKiB, runMain, sleep, startServer, tempDataDir, verdict, type Server } from './support.js';

const FILES_SERVER = join(ROOT, 'dist/bench/files-server.js');
const JOBS = 10;
const SETTLE_MS = 5_000;
const WINDOW_MS = 15_000;
const SAMPLE_EVERY_MS = 500;
const AIM_MB = 200;

/** RSS samples of `pid` over `ms`, in MiB. */
async function sampleRss(pid: number, ms: number): Promise<number[]> {
  const samples: number[] = [rssKiB(pid) / 1024];
  const started = performance.now();
  while (performance.now() - started < ms) {
    await sleep(SAMPLE_EVERY_MS);
    samples.push(rssKiB(pid) / 1024);
  }
  return samples;
}

/** A difference in MB with its sign. */
const signed = (n: number) => `${n < 0 ? '−' : '+'}${num(Math.abs(n), 0)} MB`;
const mb = (mib: number) => `${num(mib, 1)} MiB (${num(mib * 1.048576, 1)} MB)`;

async function main(): Promise<void> {
  heading(`job-files: ${JOBS} jobs of 50 MiB of files waiting, no agent`);
  await printMachineLoad();
  const dataDir = tempDataDir('job-files');
  let server: Server | undefined;
  try {
    console.log(`  data dir on ${fsKind(dataDir)}`);
    server = await startServer(FILES_SERVER, ['--data-dir', dataDir], { nodeArgs: ['--expose-gc'] });
    await sleep(SETTLE_MS);
    const idle = await sampleRss(server.pid, WINDOW_MS / 3);
    const storeMs: number[] = [];
    const heldMs: number[] = [];
    let peak = 0;
    for (let i = 1; i <= JOBS; i++) {
      const line = await server.nextLine(new RegExp(`^stored ${i} in `), 'SIGUSR2', 60_000);
      storeMs.push(Number(/in (\d+) ms/.exec(line)![1]));
      heldMs.push(Number(/loop held (\d+) ms/.exec(line)![1]));
      peak = Math.max(peak, rssKiB(server.pid) / 1024);
    }
    const waiting = await sampleRss(server.pid, WINDOW_MS);
    await server.nextLine(/^collected$/, 'SIGWINCH');
    await sleep(1_000);
    const collected = await sampleRss(server.pid, 3_000);

    const idleMean = mean(idle);
    const waitingMax = Math.max(...waiting);
    const above = (mib: number) => (mib - idleMean) * 1.048576;
    console.log(`  idle sampled ${idle.length}×; after the ${JOBS} submissions, ${waiting.length} samples over ${WINDOW_MS / 1000} s while they wait\n`);
    printTable([
      ['', 'measured', 'aim', ''],
      ['RSS idle, mean', mb(idleMean), '', ''],
      ['RSS while submitting, max', `${mb(peak)}, ${signed(above(peak))}`, '', ''],
      ['RSS while waiting, mean', `${mb(mean(waiting))}, ${signed(above(mean(waiting)))}`, '', ''],
      ['RSS while waiting, max', `${mb(waitingMax)}, ${signed(above(waitingMax))}`, `< +${AIM_MB} MB`, verdict(above(waitingMax) < AIM_MB)],
      ['RSS after a full GC, mean', `${mb(mean(collected))}, ${signed(above(mean(collected)))}`, '', ''],
      ['store write of a 50 MiB job, mean', `${num(mean(storeMs), 0)} ms`, '', ''],
      ['store write of a 50 MiB job, max', `${num(Math.max(...storeMs), 0)} ms`, '', ''],
      ['event loop held by one such write, max', `${num(Math.max(...heldMs), 0)} ms`, '', ''],
    ]);
  } finally {
    await server?.stop();
    removeDir(dataDir);
  }
}

runMain(main);
