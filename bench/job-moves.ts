/**
 * What each job move costs on each engine, called in this process (no HTTP, no agent): a job
 * submitted, dispatched, its attempt failed (back to the queue), dispatched again and
 * answered (with a webhook delivery written); and a queued job cancelled. For each move, the
 * median and p99 time, and this process's CPU time per move (user + system): the store's own
 * work, steadier than wall time on a shared machine. SQLite is a data dir on disk
 * (synchronous=FULL: a commit waits for its fsync); PostgreSQL a throwaway cluster made
 * durable like a real server, whose own CPU time is not in this process's.
 *
 *   node dist/bench/job-moves.js [jobs]      (default 400 a engine)
 */
import type { AttemptEnd, JobRow } from '../main/core/jobs.js';
import type { JobStore } from '../main/queue/job-store.js';
import { connect } from '../main/storage/postgres/connect.js';
import { PgJobStore } from '../main/storage/postgres/job-store.js';
import { migrate } from '../main/storage/postgres/schema.js';
import { openDatabase } from '../main/storage/sqlite/db.js';
import { SqliteJobStore } from '../main/storage/sqlite/job-store.js';
import { SqliteWebhookOutbox } from '../main/storage/sqlite/outbox.js';
import { newJob } from '../test/support/new-job.js';
import { postgresInstalled, startPostgres } from '../test/support/postgres.js';
import { ascending, heading, ms, num, percentile, printMachineLoad, printTable, removeDir, runMain, tempDataDir } from './support.js';

const MOVES = ['submit', 'dispatch', 'end: failed', 'end: answered', 'cancel'] as const;
type Move = (typeof MOVES)[number];

const FAILED: AttemptEnd = { outcome: 'failed', errorCode: 'PROVIDER_ERROR', detail: 'Something went wrong' };
const answered = (n: number): AttemptEnd => ({ outcome: 'succeeded', response: `answer ${n}`, conversationRef: `cv_${n}`, conversationAddress: `https://chat.example/c/${n}` });

/** Times of each move (ms), and this process's CPU time over them (µs). */
type Timings = Record<Move, { wall: number[]; cpuUs: number }>;

async function main(): Promise<void> {
  heading('job moves on each engine, in process');
  await printMachineLoad();
  const jobs = Number(process.argv[2] ?? 400);
  const rows = [['engine', 'move', 'median', 'p99', 'CPU here / move']];

  const dir = tempDataDir('moves');
  const db = openDatabase(dir);
  try {
    rows.push(...report('SQLite', await measure(new SqliteJobStore(db, new SqliteWebhookOutbox(db)), jobs)));
  } finally {
    db.close();
    removeDir(dir);
  }

  if (!postgresInstalled()) {
    console.log('  PostgreSQL skipped: not installed (no initdb on PATH or under /usr/lib/postgresql)');
  } else {
    const cluster = await startPostgres({ durable: true });
    try {
      const pool = await connect(await cluster.createDatabase());
      await migrate(pool);
      rows.push(...report('PostgreSQL', await measure(new PgJobStore(pool, 'dev_bench'), jobs)));
    } finally {
      cluster.stop();
    }
  }
  console.log(`\n  ${jobs} jobs a engine (after 50 untimed), one move at a time`);
  printTable(rows);
}

async function measure(store: JobStore, jobs: number): Promise<Timings> {
  const timings = Object.fromEntries(MOVES.map((m) => [m, { wall: [] as number[], cpuUs: 0 }])) as Timings;
  const timed = async <T>(move: Move | null, call: () => Promise<T>): Promise<T> => {
    const cpu = process.cpuUsage();
    const begin = performance.now();
    const value = await call();
    if (move) {
      timings[move].wall.push(performance.now() - begin);
      const used = process.cpuUsage(cpu);
      timings[move].cpuUs += used.user + used.system;
    }
    return value;
  };
  for (let n = 0; n < 50 + jobs; n++) {
    const move = (m: Move) => (n < 50 ? null : m);
    const submitted = async () => {
      const result = await timed(move('submit'), () =>
        store.submit({ job: newJob({ created_at: Date.now(), callback_url: 'https://hooks.example/done' }), queuedLimit: 1_000_000 }),
      );
      if (result.kind !== 'created') throw new Error(`not created: ${result.kind}`);
      return result.job;
    };
    const dispatched = async (job: JobRow) => {
      const [out] = await timed(move('dispatch'), () => store.dispatch([{ jobId: job.id, agentId: 'agt_bench', provider: 'chatgpt' }], Date.now()));
      if (!out) throw new Error('a claim was skipped');
      return out;
    };
    const job = await submitted();
    await dispatched(job);
    await timed(move('end: failed'), () => store.endAttempt(job.id, 1, FAILED, Date.now()));
    await dispatched(job);
    const done = await timed(move('end: answered'), () => store.endAttempt(job.id, 2, answered(n), Date.now()));
    if (done?.job.status !== 'succeeded') throw new Error('the answer was not recorded');
    const other = await submitted();
    await timed(move('cancel'), () => store.cancel(other.id, Date.now()));
  }
  await store.close();
  return timings;
}

function report(engine: string, timings: Timings): string[][] {
  return MOVES.map((move) => {
    const { wall, cpuUs } = timings[move];
    const sorted = ascending(wall);
    return [engine, move, ms(percentile(sorted, 50)), ms(percentile(sorted, 99)), `${num(cpuUs / wall.length)} µs`];
  });
}

runMain(main, 400_000);
