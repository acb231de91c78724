/**
 * Instances sharing one PostgreSQL (issue 11), each a process of its own
 * (dist/test/support/scripted-server.js --database: `serve --database` with scripted agents),
 * on a throwaway cluster made durable (fsync and synchronous_commit on, as a real server;
 * the tests' clusters skip them) to compare with SQLite's synchronous=FULL.
 *
 * - Accepted submissions per second (`wait: false` with a callback_url, no agent anywhere, so
 *   each is queued durably and stays queued) with 1, 2 and 3 instances, each set-up on a
 *   database of its own on the one server (an idle instance would otherwise hear and re-read
 *   every job of the others); the same with 1 instance on SQLite (its data dir, no
 *   --database); and the database alone: PgJobStore.submit called from this process, no
 *   HTTP, which is the ceiling the database sets whatever the number of instances. 48
 *   connections in all, spread evenly over a set-up's instances; timed rounds of 900 (the
 *   account's 1 000-queued limit holds across instances), the queue emptied between rounds
 *   (DELETE of each accepted id on the instance that accepted it, untimed), set-ups
 *   interleaved round by round in a rotating order so each sees the same machine state.
 *   The deleted jobs' webhooks go to an HTTPS receiver in this process (self-signed, trusted
 *   by the instances through NODE_EXTRA_CA_CERTS) that answers 204 at once, and a round ends
 *   when all have arrived: no delivery, nor a retry 30 s later, spills into another round.
 *   Each instance gets its own pool of API keys, made through its admin API (the per-key
 *   limit of 600 writes a minute applies to the admin token too), so no key nears its budget.
 * - Where a submission's time goes: CPU per accepted submission of the instances, of
 *   PostgreSQL (its postmaster and every backend, from /proc) and of the load generator
 *   (this process); and pg_stat_activity sampled during the rounds: how many backends run,
 *   how many wait inside a transaction for their instance's next statement (a round trip),
 *   how many wait for the account's queue lock. Every submission of one account takes that
 *   lock (pg_advisory_xact_lock, held until COMMIT) to count the account's queued jobs
 *   against the 1 000 limit; in Profile F every job is one account's. Statements per
 *   submission are counted on the database-alone probe's connections.
 * - Completion -> waiter across instances: a `wait: true` caller on A, the job run by B's
 *   scripted agent (answers at once); from the job's settling on B (jobs.finished_at, epoch
 *   ms taken just before its final commit, read from the database afterwards: the API's
 *   finished_at has whole seconds) to the arrival of A's answer here (same system clock,
 *   read to a fraction of a ms; finished_at's own millisecond is counted from its middle).
 *   Compared with caller and agent on one instance (on PostgreSQL too), jobs alternating.
 * - Failover time (SIGKILL of a device mid-job -> its job queued again) is bench/failover.ts.
 *
 * What the ratios mean. On this 2-core machine the instances, PostgreSQL and the load
 * generator share two cores: a second instance brings no CPU, only more work (each instance
 * hears every other's moves by NOTIFY and re-reads the job). And whatever the CPU, one
 * account's submissions are serial in the database: each holds the account's queue lock from
 * its count of queued jobs to its COMMIT, so more instances add waiters for that lock, not
 * throughput (pg_stat_activity shows it: about one backend in a submission, dozens waiting).
 * On separate machines, expect the same for one account (Profile F has only one): its rate
 * stays near the database-alone figure, or below it since each of the statements under the
 * lock then costs a network round trip; instances add agents and read capacity. Accounts of
 * Profile H, each with its own lock, would scale with instances until PostgreSQL's CPU per
 * submission (measured here) is the limit. The output says this again with the figures.
 *
 * Here: the set-ups, their rounds and the waiter latency. The CPU and pg_stat_activity
 * sampling is in cluster-cpu.ts, the totals and the report in cluster-report.ts, the sizes
 * of a round and the shared types in cluster-types.ts.
 *
 *   node dist/bench/cluster.js          (BENCH_VERBOSE=1 prints each round)
 */
import type { Request } from 'autocannon';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { randomIds } from '../main/core/ids.js';
import { LIMITS } from '../main/core/limits.js';
import { connect } from '../main/storage/postgres/connect.js';
import { PgJobStore } from '../main/storage/postgres/job-store.js';
import { migrate } from '../main/storage/postgres/schema.js';
import { newJob } from '../test/support/new-job.js';
import { postgresInstalled, startPostgres, type PgCluster } from '../test/support/postgres.js';
import { makeCertificate, WebhookReceiver } from '../test/support/webhook-receiver.js';
import { countStatements, cpuNow, postgresTicks, postmaster, sampleActivity } from './cluster-cpu.js';
import { add, report, totals } from './cluster-report.js';
import { CONNECTIONS, KEYS_PER_INSTANCE, ROUND, TIMED_ROUNDS, type Instance, type Round, type SetUp } from './cluster-types.js';
import {
  KeyRing,
  SCRIPTED_SERVER,
  api,
  ascending,
  clockTicksPerSecond,
  fsKind,
  fsyncProbe,
  heading,
  inPool,
  load,
  mergeStatuses,
  ms,
  num,
  percentile,
  printMachineLoad,
  printTable,
  runMain,
  startServer,
  tempDataDir,
  type LoadRun,
  type Server,
} from './support.js';

const WARMUP_ROUNDS = 1;
const LATENCY_WARMUP = 10;
const LATENCY_JOBS = 100;

const PROMPT = 'Summarise the meeting notes below in three bullet points.';

/** Where the webhooks of the jobs a round deletes go, and how many have been sent there. */
interface Hooks {
  receiver: WebhookReceiver;
  url: string;
  expected: number;
}

async function main(): Promise<void> {
  heading('cluster: instances on one PostgreSQL, against one on SQLite');
  if (!postgresInstalled()) {
    console.log('  skipped: PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql)');
    return;
  }
  await printMachineLoad();
  // Six instances with pools of up to 20, the probe's pool, listeners and the sampler.
  const cluster = await startPostgres({ durable: true, maxConnections: 200 });
  try {
    const admin = await connect(await cluster.createDatabase(), { max: 2 });
    try {
      const postgres = await postmaster(admin);
      const version = (await admin.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]!.v;
      const dir = tempDataDir('cluster-fs');
      const disk = fsyncProbe(dir);
      console.log(
        `  PostgreSQL ${version} on this machine, durable (fsync, synchronous_commit on); data dirs on ${fsKind(dir)}, ` +
          `whose fdatasync takes ${ms(disk.appendMs)} (appending) / ${ms(disk.overwriteMs)} (in place)`,
      );
      const postgresBefore = postgresTicks(postgres);
      await throughput(cluster, admin, postgres);
      await waiterLatency(cluster);
      console.log('\n  failover (SIGKILL of a device mid-job -> its job queued again elsewhere): see bench/failover.ts (npm run bench failover)');
      // pg_ctl detaches the server: its processes are not this one's children, so the line below counts them as others.
      const postgresSeconds = (postgresTicks(postgres) - postgresBefore) / clockTicksPerSecond();
      console.log(`  PostgreSQL used ${postgresSeconds.toFixed(1)} CPU-seconds of this benchmark: they are among the "other processes" of the next line`);
    } finally {
      await admin.end();
    }
  } finally {
    cluster.stop();
  }
}

// ---- accepted submissions per second ------------------------------------------------------

async function throughput(cluster: PgCluster, admin: pg.Pool, postgres: number): Promise<void> {
  const certificate = makeCertificate();
  // Read by the instances' processes at their start: they trust the receiver's certificate.
  process.env.NODE_EXTRA_CA_CERTS = certificate.certFile;
  const receiver = await WebhookReceiver.start(certificate);
  const hooks: Hooks = { receiver, url: receiver.url(), expected: 0 };
  const databases = await Promise.all([1, 2, 3].map(() => cluster.createDatabase()));
  // SQLite's instance, then 1, 2 and 3 instances, each set-up on its own database.
  const started = await Promise.allSettled([
    instance([]),
    ...databases.flatMap((url, i) => Array.from({ length: i + 1 }, (_, n) => instance(['--database', url, '--device-name', `pg${i + 1}-${n + 1}`]))),
  ]);
  const everyInstance = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const probeDatabase = await cluster.createDatabase();
  const probePool = await connect(probeDatabase, { max: 20 });
  const probe = new PgJobStore(probePool, 'dev_probe');
  try {
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    await migrate(probePool);
    // Statements sent by the probe's submissions alone (its queue's emptying is not counted).
    const statements = countStatements(probePool);
    const submitted = { statements: 0, jobs: 0 };
    const [sqlite, ...pgInstances] = everyInstance as [Instance, ...Instance[]];
    const pgSetUp = (n: number, url: string): SetUp => {
      const instances = pgInstances.slice((n * (n - 1)) / 2, (n * (n + 1)) / 2);
      return { name: `PostgreSQL, ${n} instance${n > 1 ? 's' : ''}`, instances, database: dbName(url), round: () => httpRound(instances, hooks), totals: totals() };
    };
    const setUps: SetUp[] = [
      { name: 'SQLite, 1 instance', instances: [sqlite], round: () => httpRound([sqlite], hooks), totals: totals() },
      ...databases.map((url, i) => pgSetUp(i + 1, url)),
      { name: 'PostgreSQL alone (no HTTP)', instances: [], database: dbName(probeDatabase), round: () => probeRound(probe, hooks.url, statements, submitted), totals: totals() },
    ];
    const timed = async (s: SetUp) => {
      const idle = everyInstance.filter((i) => !s.instances.includes(i));
      const sampler = s.database ? sampleActivity(admin, s.database, s.totals.activity) : undefined;
      const before = cpuNow(s.instances, idle, postgres);
      const begun = performance.now();
      const round = await s.round();
      const wallS = (performance.now() - begun) / 1000;
      const after = cpuNow(s.instances, idle, postgres);
      await sampler?.stop();
      add(s.totals, round, wallS, before, after);
      const emptying = performance.now();
      await round.empty();
      if (process.env.BENCH_VERBOSE) {
        console.log(`  ${s.name}: ${num(s.totals.roundRates.at(-1)!)}/s, round ${wallS.toFixed(1)} s, emptied in ${((performance.now() - emptying) / 1000).toFixed(1)} s`);
      }
    };

    // Warm-up (untimed): JIT, the pools' connections, every key's once-a-minute last_used_at write.
    for (let i = 0; i < WARMUP_ROUNDS; i++) for (const s of setUps) await (await s.round()).empty();
    for (const at of everyInstance) await inPool(at.keys.keys, 8, (key) => api(at.server.url, 'GET', '/v1/completions/job_none', key));
    for (let r = 0; r < TIMED_ROUNDS; r++) {
      // A rotating order: no set-up always follows the same one (autovacuum, a checkpoint, caches).
      for (let i = 0; i < setUps.length; i++) await timed(setUps[(i + r) % setUps.length]!);
    }
    report(setUps, submitted.statements / submitted.jobs);
  } finally {
    await probe.close();
    await Promise.all(everyInstance.map((i) => i.server.stop()));
    await receiver.close();
    certificate.remove();
  }
}

/** Starts a scripted server without agents and gives it KEYS_PER_INSTANCE keys through its admin API. */
async function instance(args: string[]): Promise<Instance> {
  const dataDir = tempDataDir('cluster');
  const server = await startServer(SCRIPTED_SERVER, ['--data-dir', dataDir, '--port', '0', ...args]);
  const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  // Through the API, not into the data dir: a key made here is wherever this instance keeps keys.
  const secrets = await inPool(Array.from({ length: KEYS_PER_INSTANCE }, (_, i) => i), 8, async (i) => {
    const made = await api(server.url, 'POST', '/admin/v1/keys', token, { name: `bench-${i}`, scopes: ['completions:read', 'completions:write'] });
    if (made.status !== 201) throw new Error(`creating a key answered ${made.status}: ${JSON.stringify(made.body)}`);
    return made.body.secret as string;
  });
  return { server, keys: new KeyRing(secrets) };
}

/** ROUND submissions over HTTP, spread evenly over `instances`; `empty` deletes each where it was accepted. */
async function httpRound(instances: Instance[], hooks: Hooks): Promise<Round> {
  const ids = instances.map(() => [] as string[]);
  const body = JSON.stringify({ prompt: PROMPT, wait: false, callback_url: hooks.url });
  const runs = await Promise.all(
    instances.map((at, i) =>
      load({ url: at.server.url, connections: CONNECTIONS / instances.length, amount: ROUND / instances.length, requests: submissions(at, body, ids[i]!) }),
    ),
  );
  const empty = async () => {
    await Promise.all(
      instances.map(async (at, i) => {
        const deleted = await inPool(ids[i]!, CONNECTIONS / instances.length, (id) => api(at.server.url, 'DELETE', `/v1/completions/${id}`, at.keys.take()));
        const failed = deleted.filter((d) => d.status !== 200);
        if (failed.length) throw new Error(`${failed.length} DELETEs failed, e.g. ${failed[0]!.status} ${JSON.stringify(failed[0]!.body)}`);
      }),
    );
    const status = await api(instances[0]!.server.url, 'GET', '/v1/status', instances[0]!.keys.take());
    if (status.body?.queue?.depth !== 0) throw new Error(`queue not empty after a round: depth ${status.body?.queue?.depth}`);
    hooks.expected += ids.reduce((n, of) => n + of.length, 0);
    await hooks.receiver.waitFor(hooks.expected, 60_000);
  };
  return { ...merge(runs), empty };
}

function submissions(at: Instance, body: string, ids: string[]): Request[] {
  return [
    {
      method: 'POST',
      path: '/v1/completions',
      headers: { 'content-type': 'application/json' },
      body,
      setupRequest: (req) => {
        req.headers!.authorization = `Bearer ${at.keys.take()}`;
        return req;
      },
      onResponse: (status, body) => {
        if (status === 202) ids.push((JSON.parse(body) as { id: string }).id);
      },
    },
  ];
}

/** The runs of one round, started together, as one: from the first response of any to the last of all. */
function merge(runs: LoadRun[]): Omit<Round, 'empty'> {
  const statuses = new Map<number, number>();
  for (const run of runs) mergeStatuses(statuses, run.statuses);
  return {
    accepted: statuses.get(202) ?? 0,
    steadyMs: Math.max(...runs.map((r) => r.wallMs)) - Math.min(...runs.map((r) => r.firstMs)),
    latencies: runs.flatMap((r) => r.latencies),
    statuses,
    errors: runs.reduce((n, r) => n + r.result.errors + r.result.timeouts, 0),
  };
}

/** ROUND submissions straight into the store, CONNECTIONS at a time; `empty` cancels them. */
async function probeRound(store: PgJobStore, callbackUrl: string, statements: { count: number }, submitted: { statements: number; jobs: number }): Promise<Round> {
  const statementsBefore = statements.count;
  const latencies: number[] = [];
  const ids: string[] = [];
  let first = NaN;
  let last = 0;
  await inPool(Array.from({ length: ROUND }), CONNECTIONS, async () => {
    const now = Date.now();
    const t = performance.now();
    const result = await store.submit({ job: newJob({ id: randomIds.job(now), created_at: now, callback_url: callbackUrl }), queuedLimit: LIMITS.queuedJobs });
    last = performance.now();
    if (Number.isNaN(first)) first = last;
    else latencies.push(last - t);
    if (result.kind !== 'created') throw new Error(`the store refused a submission: ${result.kind}`);
    ids.push(result.job.id);
  });
  submitted.statements += statements.count - statementsBefore;
  submitted.jobs += ids.length;
  const empty = async () => {
    await inPool(ids, CONNECTIONS, (id) => store.cancel(id, Date.now()));
  };
  return { accepted: ids.length, steadyMs: last - first, latencies, statuses: new Map([[202, ids.length]]), errors: 0, empty };
}

const dbName = (url: string) => new URL(url).pathname.slice(1);

// ---- completion -> waiter latency ---------------------------------------------------------

async function waiterLatency(cluster: PgCluster): Promise<void> {
  const [crossUrl, localUrl] = await Promise.all([cluster.createDatabase(), cluster.createDatabase()]);
  const start = async (url: string, name: string, agents: string) => {
    const dataDir = tempDataDir('cluster-wait');
    const server = await startServer(SCRIPTED_SERVER, ['--data-dir', dataDir, '--port', '0', '--agents', agents, '--database', url, '--device-name', name]);
    return { server, token: readFileSync(join(dataDir, 'admin-token'), 'utf8').trim() };
  };
  // A answers the API and runs no agent; B runs the only one. L is caller and agent in one.
  const [a, b, l] = await Promise.all([start(crossUrl, 'front', ''), start(crossUrl, 'worker', 'chatgpt=1'), start(localUrl, 'alone', 'chatgpt=1')]);
  try {
    const waited = async (at: { server: Server; token: string }, prompt: string) => {
      const sent = performance.now();
      const answer = await api(at.server.url, 'POST', '/v1/completions', at.token, { prompt, wait: true });
      const arrived = performance.timeOrigin + performance.now();
      if (answer.status !== 200 || answer.body.status !== 'succeeded') throw new Error(`a wait:true call answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return { id: answer.body.id as string, arrived, totalMs: arrived - performance.timeOrigin - sent };
    };
    for (let i = 0; i < LATENCY_WARMUP; i++) {
      await waited(a, `warm-up ${i}`);
      await waited(l, `warm-up ${i}`);
    }
    const cross: Awaited<ReturnType<typeof waited>>[] = [];
    const local: Awaited<ReturnType<typeof waited>>[] = [];
    for (let i = 0; i < LATENCY_JOBS; i++) {
      cross.push(await waited(a, `job ${i}`));
      local.push(await waited(l, `job ${i}`));
    }
    const settled = async (url: string, answers: typeof cross) => {
      const pool = await connect(url, { max: 1 });
      try {
        const { rows } = await pool.query<{ id: string; finished_at: number }>(`SELECT id, finished_at FROM jobs WHERE id = ANY($1)`, [answers.map((x) => x.id)]);
        const finished = new Map(rows.map((r) => [r.id, r.finished_at]));
        // finished_at is a whole millisecond (Date.now()); the moment lies somewhere in it.
        return ascending(answers.map((x) => x.arrived - (finished.get(x.id)! + 0.5)));
      } finally {
        await pool.end();
      }
    };
    const [crossMs, localMs] = await Promise.all([settled(crossUrl, cross), settled(localUrl, local)]);
    const totalOf = (answers: typeof cross) => ascending(answers.map((x) => x.totalMs));
    console.log(`\n  completion -> wait:true answer, ${LATENCY_JOBS} jobs each, alternating (from the job's settling, finished_at in ms, to the answer here)`);
    printTable([
      ['', 'median', 'p95', 'max', 'whole call, median'],
      ['caller on A, agent on B (NOTIFY, A re-reads the job)', ms(percentile(crossMs, 50)), ms(percentile(crossMs, 95)), ms(crossMs.at(-1)!), ms(percentile(totalOf(cross), 50))],
      ['caller and agent on one instance', ms(percentile(localMs, 50)), ms(percentile(localMs, 95)), ms(localMs.at(-1)!), ms(percentile(totalOf(local), 50))],
    ]);
    console.log('  both include the final commit (its WAL flush); across instances also the NOTIFY, A\'s re-read of the job and its publishing.');
  } finally {
    await Promise.all([a.server.stop(), b.server.stop(), l.server.stop()]);
  }
}

runMain(main);
