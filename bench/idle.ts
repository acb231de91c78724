/**
 * The idle service: `chatbridge serve` on a fresh data dir, left alone. After it settles,
 * its memory (VmRSS) and CPU time (utime + stime of /proc/<pid>/stat, every thread) are
 * sampled over 30 s. Aims (issue 37): under 100 MiB resident on average, under 1 % of one core.
 *
 *   node dist/bench/idle.js
 */
import {
  CLI,
  clockTicksPerSecond,
  cpuTicks,
  heading,
  mean,
  printMachineLoad,
  num,
  printTable,
  removeDir,
  rssKiB,
  runMain,
  sleep,
  startServer,
  tempDataDir,
  verdict,
  type Server,
} from './support.js';

const SETTLE_MS = 5_000;
const WINDOW_MS = 30_000;
const SAMPLE_EVERY_MS = 1_000;

async function main(): Promise<void> {
  heading('idle: chatbridge serve, no requests');
  await printMachineLoad();
  const dataDir = tempDataDir('idle');
  let server: Server | undefined;
  try {
    server = await startServer(CLI, ['serve', '--port', '0', '--data-dir', dataDir]);
    const pid = server.pid;
    await sleep(SETTLE_MS);
    const hz = clockTicksPerSecond();
    const rss: number[] = [];
    const ticksBefore = cpuTicks(pid);
    const started = performance.now();
    rss.push(rssKiB(pid));
    while (performance.now() - started < WINDOW_MS) {
      await sleep(SAMPLE_EVERY_MS);
      rss.push(rssKiB(pid));
    }
    const ticks = cpuTicks(pid) - ticksBefore;
    const elapsedS = (performance.now() - started) / 1000;
    const cpuPercent = ((ticks / hz) * 100) / elapsedS;
    const rssMeanMiB = mean(rss) / 1024;
    const rssMaxMiB = Math.max(...rss) / 1024;

    console.log(`  settled ${SETTLE_MS / 1000} s after "listening on", then ${rss.length} samples over ${elapsedS.toFixed(1)} s\n`);
    printTable([
      ['', 'measured', 'aim', ''],
      ['RSS, mean', `${num(rssMeanMiB, 1)} MiB (${num(rssMeanMiB * 1.048576, 1)} MB)`, '< 100 MiB', verdict(rssMeanMiB < 100)],
      ['RSS, max', `${num(rssMaxMiB, 1)} MiB (${num(rssMaxMiB * 1.048576, 1)} MB)`, '', ''],
      ['CPU time in the window', `${ticks} ticks (${((ticks / hz) * 1000).toFixed(0)} ms)`, '', ''],
      ['CPU, % of one core', `${cpuPercent.toFixed(2)} %`, '< 1 %', verdict(cpuPercent < 1)],
    ]);
    console.log(`  (1 tick = ${(1000 / hz).toFixed(0)} ms; 1 % of one core over the window is ${((elapsedS * hz) / 100).toFixed(0)} ticks)`);
  } finally {
    await server?.stop();
    removeDir(dataDir);
  }
}

runMain(main);
