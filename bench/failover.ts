/**
 * Several instances on one PostgreSQL (a throwaway cluster, as the tests make).
 *
 * - Failover: a device in a process of its own dispatches a job and is SIGKILLed a random
 *   0–3 s later (anywhere between two heartbeats); a live device's sweep puts the job back in
 *   the queue. The time from the kill to that event, over N kills (default 5), with the
 *   default lease (beat 3 s, lease 10 s, sweep 2 s). Aim: every one under 15 s.
 * - Cross-instance events: a move committed on A (submit, dispatch, end of attempt) to the
 *   event on B, which hears it by LISTEN/NOTIFY and re-reads the job, over ~200 moves. Both
 *   instances are in this process, on the same machine as the database.
 *
 *   node dist/bench/failover.js [kills]
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { systemClock } from '../main/core/clock.js';
import { randomIds } from '../main/core/ids.js';
import type { JobRow, StoreEvent } from '../main/core/jobs.js';
import { connect } from '../main/storage/postgres/connect.js';
import { DEFAULT_LEASE, Device } from '../main/storage/postgres/devices.js';
import { PgJobStore } from '../main/storage/postgres/job-store.js';
import { migrate } from '../main/storage/postgres/schema.js';
import { newJob } from '../test/support/new-job.js';
import { postgresInstalled, startPostgres } from '../test/support/postgres.js';
import { ascending, heading, ms, percentile, printMachineLoad, printTable, ROOT, runMain, sleep, verdict } from './support.js';

const DEVICE_PROCESS = join(ROOT, 'dist/test/support/pg-device-process.js');
const AIM_FAILOVER_MS = 15_000;
const MOVES = 200;

async function main(): Promise<void> {
  heading('failover and cross-instance events on PostgreSQL');
  if (!postgresInstalled()) {
    console.log('  skipped: PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql)');
    return;
  }
  await printMachineLoad();
  const kills = Number(process.argv[2] ?? 5);
  const cluster = await startPostgres();
  try {
    const url = await cluster.createDatabase();
    const setup = await connect(url, { max: 1 });
    await migrate(setup);
    await setup.end();
    await failover(url, kills);
    await crossInstanceEvents(url);
  } finally {
    cluster.stop();
  }
}

async function failover(url: string, kills: number): Promise<void> {
  const pool = await connect(url);
  const store = new PgJobStore(pool, 'dev_live');
  const device = new Device(pool, store, { name: 'live', baseUrl: null }, systemClock, (e) => console.error(`  sweep/beat failed: ${e.message}`));
  await device.start();
  const times: number[] = [];
  try {
    for (let i = 0; i < kills; i++) {
      const { jobId, kill } = await deviceProcess(url, `dev_doomed_${i}`);
      const back = new Promise<number>((resolve) => {
        const stop = store.onEvent((e) => {
          if (e.job.id === jobId && e.job.status === 'queued') {
            stop();
            resolve(performance.now());
          }
        });
      });
      await sleep(Math.random() * DEFAULT_LEASE.heartbeatMs);
      const killedAt = performance.now();
      kill();
      times.push((await back) - killedAt);
    }
  } finally {
    await device.leave();
    await store.close();
  }
  const sorted = ascending(times);
  const { heartbeatMs, leaseMs, sweepMs } = DEFAULT_LEASE;
  console.log(`\n  SIGKILL -> job queued again (beat ${heartbeatMs / 1000} s, lease ${leaseMs / 1000} s, sweep ${sweepMs / 1000} s; ${kills} kills)`);
  printTable([
    ['kills', 'min', 'median', 'max', 'aim', ''],
    [String(kills), ms(sorted[0]!), ms(percentile(sorted, 50)), ms(sorted.at(-1)!), `< ${AIM_FAILOVER_MS / 1000} s`, verdict(sorted.at(-1)! < AIM_FAILOVER_MS)],
  ]);
}

/** Starts a device process that dispatches a job; resolves with that job once dispatched. */
function deviceProcess(url: string, id: string): Promise<{ jobId: string; kill: () => void }> {
  const child = spawn(process.execPath, [DEVICE_PROCESS, url, id], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const m = /^dispatched (\S+)$/m.exec(stdout);
      if (m) resolve({ jobId: m[1]!, kill: () => child.kill('SIGKILL') });
    });
    child.once('exit', (code, signal) => reject(new Error(`device process ended (${code ?? signal}): ${stderr}`)));
  });
}

async function crossInstanceEvents(url: string): Promise<void> {
  const a = new PgJobStore(await connect(url), 'dev_a');
  const b = new PgJobStore(await connect(url), 'dev_b');
  await b.listen();
  // When A published its own event (right after its COMMIT), per job and status reached.
  const committed = new Map<string, number>();
  const latencies: number[] = [];
  const key = (e: StoreEvent) => `${e.job.id} ${e.job.status}`;
  a.onEvent((e) => committed.set(key(e), performance.now()));
  let heard: ((e: StoreEvent) => void) | undefined;
  b.onEvent((e) => heard?.(e));
  /** Runs `move` on A and waits for B to hear the job reach `status`. */
  const timed = async <T>(status: string, move: () => Promise<T>): Promise<T> => {
    const onB = new Promise<StoreEvent>((resolve) => (heard = (e) => e.job.status === status && resolve(e)));
    const result = await move();
    const e = await onB;
    latencies.push(performance.now() - committed.get(key(e))!);
    return result;
  };
  try {
    for (let i = 0; latencies.length < MOVES; i++) {
      const now = systemClock.now();
      const job = await timed('queued', async () => ((await a.submit({ job: newJob({ id: randomIds.job(now), created_at: now }), queuedLimit: 1_000 })) as { job: JobRow }).job);
      await timed('dispatched', () => a.dispatch([{ jobId: job.id, agentId: 'agt_a', provider: 'chatgpt' }], now));
      await timed('succeeded', () =>
        a.endAttempt(job.id, 1, { outcome: 'succeeded', response: '4', conversationRef: `cv_${i}`, conversationAddress: 'https://chat.example/c/1' }, now),
      );
    }
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
  const sorted = ascending(latencies);
  console.log(`\n  a move committed on A -> its event on B (LISTEN/NOTIFY, then B re-reads the job)`);
  printTable([
    ['moves', 'median', 'p95', 'max'],
    [String(sorted.length), ms(percentile(sorted, 50)), ms(percentile(sorted, 95)), ms(sorted.at(-1)!)],
  ]);
}

runMain(main);
