/**
 * What holding the hourly caps in the job store costs a dispatch on PostgreSQL (a throwaway
 * cluster on this machine): one claim a round, without caps (nothing counted, no lock), and
 * with caps over an hour holding 0, then 3 000 attempt starts (the caps lock, then one
 * grouped count of the hour's starts). Rounds alternate between the two, so the machine's
 * load falls on both alike. Aim: caps add under 1 ms to a dispatch at the median.
 *
 *   node dist/bench/dispatch-caps.js [rounds]
 */
import type pg from 'pg';
import type { Claim, HourlyCaps } from '../main/core/jobs.js';
import { connect } from '../main/storage/postgres/connect.js';
import { PgJobStore } from '../main/storage/postgres/job-store.js';
import { migrate } from '../main/storage/postgres/schema.js';
import { newJob } from '../test/support/new-job.js';
import { postgresInstalled, startPostgres } from '../test/support/postgres.js';
import { ascending, heading, percentile, printMachineLoad, printTable, runMain, verdict } from './support.js';

const AIM_ADDED_MS = 1;
/** Set, and never reached: every claim is dispatched, so both sides do the same writes. */
const CAPS: HourlyCaps = { agent: 1_000_000, provider: 1_000_000, global: 1_000_000 };

async function main(): Promise<void> {
  heading('dispatch with and without hourly caps on PostgreSQL');
  if (!postgresInstalled()) {
    console.log('  skipped: PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql)');
    return;
  }
  await printMachineLoad();
  const rounds = Number(process.argv[2] ?? 1_000);
  const cluster = await startPostgres();
  try {
    const pool = await connect(await cluster.createDatabase());
    await migrate(pool);
    const store = new PgJobStore(pool, 'dev_bench');
    const rows = [['starts in the hour', 'no caps: median', 'p99', 'caps: median', 'p99', 'added (median)', 'aim', '']];
    for (const history of [0, 3_000]) {
      await addStarts(pool, history);
      rows.push(await measure(store, rounds, history));
    }
    await store.close();
    console.log(`\n  ${rounds} one-claim dispatches each way per row, alternating`);
    printTable(rows);
  } finally {
    cluster.stop();
  }
}

/** `n` finished jobs whose attempts started within the last hour, over 6 agents of 3 providers. */
async function addStarts(pool: pg.Pool, n: number): Promise<void> {
  if (n === 0) return;
  const now = Date.now();
  await pool.query(
    `INSERT INTO jobs (id, status, prompt, priority, timeout_ms, deadline_at, max_attempts, metadata, created_at, attempts, finished_at)
     SELECT 'job_hist_' || i, 'succeeded', '', 0, 1000, $1::bigint, 1, '{}', $1::bigint - 1000 * i, 1, $1::bigint FROM generate_series(1, $2) AS i`,
    [now, n],
  );
  await pool.query(
    `INSERT INTO attempts (job_id, attempt, agent_id, provider, device_id, started_at, ended_at, outcome)
     SELECT 'job_hist_' || i, 1, 'agt_' || (i % 6), (ARRAY['chatgpt', 'claude', 'qwen'])[1 + i % 3], 'dev_other', $1::bigint - 1000 * i, $1::bigint, 'succeeded'
     FROM generate_series(1, $2) AS i`,
    [now, n],
  );
  await pool.query('ANALYZE');
}

async function measure(store: PgJobStore, rounds: number, history: number): Promise<string[]> {
  const times = { plain: [] as number[], capped: [] as number[] };
  const one = async (caps: HourlyCaps | undefined) => {
    const job = await store.submit({ job: newJob({ created_at: Date.now() }), queuedLimit: 1_000_000 });
    if (job.kind !== 'created') throw new Error(`not created: ${job.kind}`);
    const claim: Claim = { jobId: job.job.id, agentId: 'agt_bench', provider: 'chatgpt', ...(caps ? { caps } : {}) };
    const begin = performance.now();
    const out = await store.dispatch([claim], Date.now());
    const took = performance.now() - begin;
    if (out.length !== 1) throw new Error('a claim was skipped');
    return took;
  };
  // Warm-up: connections opened, statements planned.
  for (let i = 0; i < 50; i++) await one(i % 2 ? CAPS : undefined);
  for (let i = 0; i < rounds; i++) {
    times.plain.push(await one(undefined));
    times.capped.push(await one(CAPS));
  }
  const plain = ascending(times.plain);
  const capped = ascending(times.capped);
  const added = percentile(capped, 50) - percentile(plain, 50);
  return [
    String(history),
    us(percentile(plain, 50)),
    us(percentile(plain, 99)),
    us(percentile(capped, 50)),
    us(percentile(capped, 99)),
    us(added),
    `< ${AIM_ADDED_MS} ms`,
    verdict(added < AIM_ADDED_MS),
  ];
}

const us = (ms: number) => `${Math.round(ms * 1000)} µs`;

runMain(main);
