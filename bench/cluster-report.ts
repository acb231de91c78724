/**
 * The cluster benchmark's results (bench/cluster.ts): a set-up's running totals, what each
 * timed round adds to them, and the report: submissions per second, CPU per submission,
 * PostgreSQL's backends during the rounds, and what the ratios mean, from the figures.
 */
import { availableParallelism } from 'node:os';
import type { CpuSnapshot } from './cluster-cpu.js';
import { CONNECTIONS, KEYS_PER_INSTANCE, ROUND, TIMED_ROUNDS, type Round, type SetUp, type Totals } from './cluster-types.js';
import { ascending, clockTicksPerSecond, describeStatuses, mergeStatuses, ms, num, percentile, printTable } from './support.js';

export const totals = (): Totals => ({
  accepted: 0,
  steadyAccepted: 0,
  steadyMs: 0,
  latencies: [],
  statuses: new Map(),
  errors: 0,
  roundRates: [],
  cpu: { instances: 0, idle: 0, postgres: 0, generator: 0, machine: 0, wallS: 0 },
  activity: { samples: 0, running: 0, inTransaction: 0, lockWait: 0 },
});

export function add(t: Totals, round: Round, wallS: number, before: CpuSnapshot, after: CpuSnapshot): void {
  const hz = clockTicksPerSecond();
  t.accepted += round.accepted;
  t.steadyAccepted += round.accepted - 1;
  t.steadyMs += round.steadyMs;
  for (const l of round.latencies) t.latencies.push(l);
  mergeStatuses(t.statuses, round.statuses);
  t.errors += round.errors;
  t.roundRates.push(((round.accepted - 1) / round.steadyMs) * 1000);
  t.cpu.instances += (after.instances - before.instances) / hz;
  t.cpu.idle += (after.idle - before.idle) / hz;
  t.cpu.postgres += (after.postgres - before.postgres) / hz;
  t.cpu.generator += (after.generatorUs - before.generatorUs) / 1e6;
  t.cpu.machine += (after.machine - before.machine) / hz;
  t.cpu.wallS += wallS;
}

export function report(setUps: SetUp[], statementsPerSubmission: number): void {
  const rate = (t: Totals) => (t.steadyAccepted / t.steadyMs) * 1000;
  const [sqlite, one, two, three, alone] = setUps as [SetUp, SetUp, SetUp, SetUp, SetUp];
  const perSubmission = (seconds: number, t: Totals) => ms((seconds * 1000) / t.accepted);
  console.log(
    `\n  ${CONNECTIONS} connections in all, spread evenly over a set-up's instances; ${TIMED_ROUNDS} timed rounds of ${ROUND} submissions per set-up,` +
      `\n  interleaved, the queue emptied between rounds; ${KEYS_PER_INSTANCE} API keys per instance used round-robin.\n`,
  );
  printTable([
    ['', 'submissions/s', 'per round', 'p50', 'p99', 'ratio to 1 PG instance', 'ratio to SQLite', 'non-2xx'],
    ...setUps.map((s) => {
      const t = s.totals;
      const sorted = ascending(t.latencies);
      const statuses = describeStatuses(t.statuses, t.errors);
      return [
        s.name,
        num(rate(t)),
        `${num(Math.min(...t.roundRates))}..${num(Math.max(...t.roundRates))}`,
        ms(percentile(sorted, 50)),
        ms(percentile(sorted, 99)),
        s === sqlite ? '' : (rate(t) / rate(one.totals)).toFixed(2),
        (rate(t) / rate(sqlite.totals)).toFixed(2),
        statuses.non2xx ? statuses.text : '0',
      ];
    }),
  ]);
  console.log('  submissions/s count from a round\'s first response to its last; p50/p99 leave out each connection\'s first request (its connect).');
  console.log('  "PostgreSQL alone": PgJobStore.submit called from this process on its own pool of 20, 48 at a time: the database\'s ceiling.');

  console.log('\n  CPU per accepted submission (timed rounds), and how busy the machine was during them');
  printTable([
    ['', 'instances', 'PostgreSQL', 'load generator', 'machine busy', 'idle instances'],
    ...setUps.map((s) => {
      const c = s.totals.cpu;
      return [
        s.name,
        s.instances.length ? perSubmission(c.instances, s.totals) : '',
        s === sqlite ? '' : perSubmission(c.postgres, s.totals),
        perSubmission(c.generator, s.totals),
        `${((c.machine / c.wallS / availableParallelism()) * 100).toFixed(0)} %`,
        `${((c.idle / c.wallS) * 100).toFixed(0)} % of a core`,
      ];
    }),
  ]);
  console.log(
    "  instances: the set-up's scripted servers; load generator: this process (autocannon, or the probe's store); machine: every" +
      "\n  process, of all cores; idle instances: the other set-ups' instances meanwhile (heartbeats, sweeps).",
  );

  console.log('\n  PostgreSQL backends of the set-up during its rounds, mean of samples every 25 ms (pg_stat_activity)');
  printTable([
    ['', 'running a statement', 'in a transaction, waiting for its instance', 'waiting for the account\'s queue lock'],
    ...setUps
      .filter((s) => s.database)
      .map((s) => {
        const a = s.totals.activity;
        const avg = (n: number) => (n / Math.max(1, a.samples)).toFixed(1);
        return [s.name, avg(a.running), avg(a.inTransaction), avg(a.lockWait)];
      }),
  ]);
  console.log(
    `  statements per submission in the store (counted on the probe's connections, BEGIN and COMMIT included): ${statementsPerSubmission.toFixed(1)};` +
      "\n  over HTTP two more, outside the transaction: the key's request limit, and the 202 answer's queue_position (a count).",
  );

  // What the figures mean here and on separate machines, from what was measured.
  const ratio = (s: SetUp) => (rate(s.totals) / rate(one.totals)).toFixed(2);
  const activity = (s: SetUp) => {
    const a = s.totals.activity;
    const avg = (n: number) => (n / Math.max(1, a.samples)).toFixed(1);
    return { holding: avg(a.running + a.inTransaction), running: avg(a.running), inTransaction: avg(a.inTransaction), waiting: avg(a.lockWait) };
  };
  const busy = activity(three);
  const cpu = (s: SetUp, of: 'instances' | 'postgres' | 'generator') => ms((s.totals.cpu[of] * 1000) / s.totals.accepted);
  const machineBusy = (s: SetUp) => `${((s.totals.cpu.machine / s.totals.cpu.wallS / availableParallelism()) * 100).toFixed(0)} %`;
  const pgPerCore = 1000 / ((one.totals.cpu.postgres * 1000) / one.totals.accepted);
  const lines = [
    'What the ratios mean. Here the instances, PostgreSQL and the load generator share two cores, so a second or third',
    'instance brings no CPU of its own; yet the machine was only ' + `${machineBusy(one)}, ${machineBusy(two)}, ${machineBusy(three)} busy in the rounds of 1, 2, 3 instances.`,
    "What limits them is the account's queue lock: every submission takes it (the 1 000-queued limit, counted across",
    'instances) and holds it until its COMMIT, and Profile F has one account, so the database accepts one submission at a',
    `time: with 3 instances ${busy.holding} backends on average are in a submission (${busy.running} running a statement, ${busy.inTransaction} waiting inside the`,
    `transaction for its instance's next statement) while ${busy.waiting} wait for the lock. Each submission holds it ~${ms(1000 / rate(one.totals))} with one`,
    `instance; more instances add waiters, and work: 2 and 3 instances give ${ratio(two)} and ${ratio(three)} x one (each instance hears the`,
    `others' moves and re-reads the jobs; CPU a submission, instances ${cpu(one, 'instances')}, ${cpu(two, 'instances')}, ${cpu(three, 'instances')}; PostgreSQL ${cpu(one, 'postgres')}, ${cpu(two, 'postgres')}, ${cpu(three, 'postgres')}).`,
    `The database alone, no HTTP, reaches ${num(rate(alone.totals))}/s: its ceiling for one account here. SQLite's one instance: ${num(rate(sqlite.totals))}/s`,
    '(its group commit: one transaction for many submissions).',
    `On separate machines the CPU is not shared (per submission here: instances ${cpu(one, 'instances')}, PostgreSQL ${cpu(one, 'postgres')}, load`,
    `generator ${cpu(one, 'generator')}), but one account's submissions stay serial: each holds the lock over the round trips from`,
    `its count of queued jobs to its COMMIT (of its ${statementsPerSubmission.toFixed(0)} statements), then over a network (~0.1-0.5 ms each on a LAN, against`,
    "~0.05 ms on loopback), plus the COMMIT's WAL flush. Expect one account's submissions/s near or below the database-alone",
    'figure whatever the number of instances (ratios ~1, or below with the fan-out of notices). More instances add agents',
    '(browsers) and capacity for reads; accounts of Profile H, each with its own lock, would scale with instances until',
    `PostgreSQL's CPU is the limit (~${num(pgPerCore)}/s per core at ${cpu(one, 'postgres')} a submission). One account's rate would rise if an`,
    'instance took the lock once for a group of submissions (a group commit, as the SQLite store does), or kept the',
    'queued count in a row updated just before COMMIT.',
  ];
  console.log('\n' + lines.map((line) => `  ${line}`).join('\n'));
}
