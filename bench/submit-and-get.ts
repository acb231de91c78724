/**
 * Submissions and reads per second at 50 connections, each beside a bare fastify route in
 * its own process that answers a body of the same size (measured in the same run, rounds
 * interleaved so both see the same machine state). Submissions have a third target, the
 * floor: the bare route that also writes each job with the job store's own durable insert
 * (bare-server.ts --durable-dir), so that the figures tell the durable work's share of the
 * service's distance to bare fastify from the rest of the service's.
 *
 * Submissions are `wait: false` with a callback_url: accepted and queued durably with no
 * agent. The contract caps the queue at 1 000 jobs, so they are timed in rounds of 900 and
 * the queue is emptied between rounds (DELETE of each accepted id, untimed). Each job so
 * cancelled has its webhook sent: the callback_url is a receiver in this process that takes
 * it at once (204, test/support/webhook-receiver.ts), and the next round waits until every
 * one has arrived, so no delivery nor retry (30 s, then 5 min after one a receiver refused)
 * runs during a timed round and takes CPU from the service, the bare route or the client. The per-key
 * limits (600 writes, 1 200 reads a minute) are respected by spreading requests over a
 * pool of keys. GETs read existing queued jobs (the polling case; the answer carries
 * queue_position).
 *
 * Beside throughput, each server's CPU time per request (user + system, all threads, from
 * /proc): on a shared machine the req/s of every target swing with the other processes'
 * load, while CPU time per request moves less, so it tells a change in the service's own cost
 * better (with V8's memory reducer off in every target: see STEADY).
 *
 *   node dist/bench/submit-and-get.js          (BENCH_VERBOSE=1 prints each round)
 *   BENCH_ONLY=gets node dist/bench/submit-and-get.js      (the GETs alone)
 *   BENCH_CPU_PROF=DIR …   every target writes a V8 CPU profile to DIR when it stops
 *                          (service, bare and floor.cpuprofile); node dist/bench/profile-top.js DIR/service.cpuprofile --areas
 *                          lists where the time went
 *   BENCH_ROUND_PROF=DIR …  each target over its timed submission rounds, nothing else: DIR/service-rounds,
 *                          DIR/bare-rounds and DIR/floor-rounds.cpuprofile (BENCH_CPU_PROF's cover
 *                          the whole run, where the untimed DELETEs between rounds, a commit each, outweigh the
 *                          submissions' commits); the figures of a profiled run carry the profiler's cost
 */
import type { Request } from 'autocannon';
import { pathToFileURL } from 'node:url';
import { makeCertificate, WebhookReceiver } from '../test/support/webhook-receiver.js';
import {
  BARE_SERVER,
  COMMIT_PROBE,
  KeyRing,
  SCRIPTED_SERVER,
  clockTicksPerSecond,
  cpuTicks,
  api,
  ascending,
  createKeys,
  describeStatuses,
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
  removeDir,
  runMain,
  startServer,
  tempDataDir,
  verdict,
  type LoadRun,
  type Server,
} from './support.js';

const CONNECTIONS = 50;
const ROUND = 900; // below the 1 000-queued-jobs limit
const TIMED_ROUNDS = 12;
const KEY_COUNT = 400;
const GET_JOBS = 100;
const GET_WARMUP_S = 2;
const GET_SEGMENT_S = 4;
const GET_SEGMENTS = 2; // per target, interleaved
/** BENCH_ONLY=gets skips the submissions: the GETs alone take a minute, the whole bench several. */
const SUBMISSIONS = process.env.BENCH_ONLY !== 'gets';

/** A submission whose webhook goes to `callbackUrl`. */
const submission = (callbackUrl: string) =>
  JSON.stringify({
    prompt: 'Summarise the meeting notes below in three bullet points.',
    wait: false,
    callback_url: callbackUrl,
  });

/** How long the deliveries of a round's cancelled jobs may take to arrive. */
const DELIVERIES_MS = 120_000;

/**
 * Node options of every target. Each target idles while the others run their rounds, and
 * V8's memory reducer takes an idle second or two for a sign to shrink the heap: its
 * collections then land on the target's next round, and the more so the longer the others'
 * rounds. Measured on the bare route alone, rounds of 900 back to back cost 28 µs of CPU a
 * request, with 2 s between them 68 µs, and with 2 s between them and this option 28 µs. A
 * steady load never idles: what is compared is each target's cost under it.
 */
const STEADY = ['--no-memory-reducer'];

/** With BENCH_CPU_PROF=DIR, the node options that have a server write DIR/<name>.cpuprofile as it stops. */
const cpuProfile = (name: string): string[] =>
  process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF, '--cpu-prof-name', `${name}.cpuprofile`] : [];

interface Totals {
  requests: number;
  wallMs: number;
  /** Responses after each run's first one, and the time from first to last response. */
  steadyRequests: number;
  steadyMs: number;
  latencies: number[];
  firstLatencies: number[];
  statuses: Map<number, number>;
  errors: number;
  roundRates: number[];
  /** CPU time of the server's process over the runs, in clock ticks; of its main thread alone. */
  cpuTicks: number;
  mainTicks: number;
}

const totals = (): Totals => ({ requests: 0, wallMs: 0, steadyRequests: 0, steadyMs: 0, latencies: [], firstLatencies: [], statuses: new Map(), errors: 0, roundRates: [], cpuTicks: 0, mainTicks: 0 });

/** A load run and the CPU time its target's process, and its main thread, spent meanwhile. */
interface Measured {
  run: LoadRun;
  cpuTicks: number;
  mainTicks: number;
}

async function measured(target: Server, start: () => Promise<LoadRun>): Promise<Measured> {
  const before = cpuTicks(target.pid);
  const mainBefore = cpuTicks(target.pid, { mainThread: true });
  const run = await start();
  return { run, cpuTicks: cpuTicks(target.pid) - before, mainTicks: cpuTicks(target.pid, { mainThread: true }) - mainBefore };
}

function add(t: Totals, { run, cpuTicks, mainTicks }: Measured): void {
  const n = run.latencies.length + run.firstLatencies.length;
  t.cpuTicks += cpuTicks;
  t.mainTicks += mainTicks;
  t.requests += n;
  t.wallMs += run.wallMs;
  t.steadyRequests += n - 1;
  t.steadyMs += run.wallMs - run.firstMs;
  for (const l of run.latencies) t.latencies.push(l);
  for (const l of run.firstLatencies) t.firstLatencies.push(l);
  mergeStatuses(t.statuses, run.statuses);
  t.errors += run.result.errors + run.result.timeouts;
  t.roundRates.push(((n - 1) / (run.wallMs - run.firstMs)) * 1000);
}

function summary(t: Totals) {
  const sorted = ascending(t.latencies);
  const all = ascending([...t.latencies, ...t.firstLatencies]);
  return {
    p99All: percentile(all, 99),
    firstP50: percentile(ascending(t.firstLatencies), 50),
    connections: t.firstLatencies.length,
    // Throughput between each run's first and last response: a round of 900 is short, and
    // the set-up of its 50 connections is not what a client with kept-alive connections pays.
    rate: (t.steadyRequests / t.steadyMs) * 1000,
    rateFromStart: (t.requests / t.wallMs) * 1000,
    cpuUsPerRequest: (t.cpuTicks / clockTicksPerSecond() / t.requests) * 1e6,
    mainCpuUsPerRequest: (t.mainTicks / clockTicksPerSecond() / t.requests) * 1e6,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    ...describeStatuses(t.statuses, t.errors),
  };
}

async function main(): Promise<void> {
  heading('submit-and-get: POST /v1/completions (wait:false) and GET /v1/completions/{id}');
  await printMachineLoad();
  const dataDir = tempDataDir('submit');
  const kind = fsKind(dataDir);
  console.log(`  data dir ${dataDir} on ${kind}${kind === 'tmpfs' ? '  WARNING: tmpfs, fsync costs nothing here; figures overstate a disk' : ''}`);
  const ring = new KeyRing(await createKeys(dataDir, KEY_COUNT));
  const cert = makeCertificate();
  const receiver = await WebhookReceiver.start(cert);
  const SUBMISSION = submission(receiver.url());
  let service: Server | undefined;
  let bare: Server | undefined;
  let floor: Server | undefined;
  const floorDir = tempDataDir('floor');
  try {
    // commit-probe counts the service's group commits from inside its process (see that file).
    service = await startServer(SCRIPTED_SERVER, ['--data-dir', dataDir, '--port', '0', '--webhook-ca', cert.certFile], {
      nodeArgs: ['--import', pathToFileURL(COMMIT_PROBE).href, ...STEADY, ...cpuProfile('service')],
    });
    const s = service;

    // One real answer of each kind: the bare routes send the same bytes.
    const accepted = await api(s.url, 'POST', '/v1/completions', ring.take(), JSON.parse(SUBMISSION));
    if (accepted.status !== 202) throw new Error(`sample submission answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
    const sampleGet = await api(s.url, 'GET', `/v1/completions/${accepted.body.id}`, ring.take());
    if (sampleGet.status !== 200) throw new Error(`sample GET answered ${sampleGet.status}`);
    await api(s.url, 'DELETE', `/v1/completions/${accepted.body.id}`, ring.take());
    /** Jobs cancelled so far: each has its webhook sent. */
    let cancelled = 1;
    // The probe goes into the bare routes' process too: its per-request clock reads and
    // 'finish' listener are the bench's cost, so both targets pay them.
    bare = await startServer(BARE_SERVER, ['--post-body', JSON.stringify(accepted.body), '--get-body', JSON.stringify(sampleGet.body)], {
      nodeArgs: ['--import', pathToFileURL(COMMIT_PROBE).href, ...STEADY, ...cpuProfile('bare')],
      env: { BENCH_PROBE_NAME: 'bare' },
    });
    const b = bare;
    floor = await startServer(BARE_SERVER, ['--post-body', JSON.stringify(accepted.body), '--get-body', JSON.stringify(sampleGet.body), '--durable-dir', floorDir], {
      nodeArgs: ['--import', pathToFileURL(COMMIT_PROBE).href, ...STEADY, ...cpuProfile('floor')],
      env: { BENCH_PROBE_NAME: 'floor' },
    });
    const f = floor;
    const bareGet = await api(b.url, 'GET', '/v1/completions/x', ring.take());
    console.log(
      `  response bodies: POST 202 ${accepted.bytes} B (bare ${accepted.bytes} B), GET 200 ${sampleGet.bytes} B (bare ${bareGet.bytes} B)`,
    );

    // ---- submissions, in rounds --------------------------------------------------------
    const submitRequests = (ids: string[]): Request[] => [
      {
        method: 'POST',
        path: '/v1/completions',
        headers: { 'content-type': 'application/json' },
        body: SUBMISSION,
        setupRequest: (req) => {
          req.headers!.authorization = `Bearer ${ring.take()}`;
          return req;
        },
        // Both targets parse the answer so the client does the same work for each.
        onResponse: (status, body) => {
          if (status === 202) ids.push((JSON.parse(body) as { id: string }).id);
        },
      },
    ];
    let cleanupFailures = 0;
    const emptyQueue = async (ids: string[]) => {
      const results = await inPool(ids, CONNECTIONS, (id) => api(s.url, 'DELETE', `/v1/completions/${id}`, ring.take()));
      cleanupFailures += results.filter((r) => r.status !== 200).length;
      cancelled += results.filter((r) => r.status === 200).length;
      await receiver.waitFor(cancelled, DELIVERIES_MS);
      const status = await api(s.url, 'GET', '/v1/status', ring.take());
      if (status.body?.queue?.depth !== 0) {
        throw new Error(`queue not empty after a round: depth ${status.body?.queue?.depth} (DELETE failures so far: ${cleanupFailures})`);
      }
    };
    const serviceRound = async () => {
      const ids: string[] = [];
      const run = await load({ url: s.url, connections: CONNECTIONS, amount: ROUND, requests: submitRequests(ids) });
      await emptyQueue(ids);
      return run;
    };
    const bareRound = () => load({ url: b.url, connections: CONNECTIONS, amount: ROUND, requests: submitRequests([]) });
    const floorIds: string[] = [];
    const floorRun = () => load({ url: f.url, connections: CONNECTIONS, amount: ROUND, requests: submitRequests(floorIds) });
    const emptyFloor = async () => {
      const results = await inPool(floorIds.splice(0), CONNECTIONS, (id) => api(f.url, 'DELETE', `/v1/completions/${id}`, ring.take()));
      cleanupFailures += results.filter((r) => r.status !== 200).length;
    };
    const floorRound = async () => {
      await floorRun();
      await emptyFloor();
    };

    // Warm-up (untimed): JIT, connection paths, and every key's once-a-minute last_used_at write.
    for (let i = 0; i < (SUBMISSIONS ? 2 : 0); i++) {
      await serviceRound();
      await bareRound();
      await floorRound();
    }
    await inPool(ring.keys, 20, (key) => api(s.url, 'GET', '/v1/completions/job_none', key));

    const commits = { groups: 0, items: 0, ms: 0, maxMs: 0, maxGroup: 0, slow: 0, logFlushes: 0 };
    const stalls = { loopMaxMs: 0, gcMs: 0, gcMaxMs: 0, gcCount: 0, servedP99Ms: 0, servedMaxMs: 0 };
    type ProbeReport = typeof commits & typeof stalls & { loopP99Ms: number; servedP50Ms: number };
    const commitStats = async () => JSON.parse((await s.nextLine(/^commit-probe /, 'SIGUSR2')).slice(13)) as ProbeReport;
    const postService = totals();
    const postBare = totals();
    const postFloor = totals();
    // With BENCH_ROUND_PROF, the baselines' probes profile between two reports, as the service's does.
    const report = (target: Server) => (process.env.BENCH_ROUND_PROF ? target.nextLine(/^commit-probe /, 'SIGUSR2') : undefined);
    for (let i = 0; i < (SUBMISSIONS ? TIMED_ROUNDS : 0); i++) {
      await commitStats(); // the probe starts over at each report: `after` covers this round alone
      const ids: string[] = [];
      const round = await measured(s, () => load({ url: s.url, connections: CONNECTIONS, amount: ROUND, requests: submitRequests(ids) }));
      const { run } = round;
      const after = await commitStats();
      commits.groups += after.groups;
      commits.items += after.items;
      commits.ms += after.ms;
      commits.slow += after.slow;
      commits.logFlushes += after.logFlushes;
      commits.maxMs = Math.max(commits.maxMs, after.maxMs);
      commits.maxGroup = Math.max(commits.maxGroup, after.maxGroup);
      stalls.loopMaxMs = Math.max(stalls.loopMaxMs, after.loopMaxMs);
      stalls.gcMs += after.gcMs;
      stalls.gcCount += after.gcCount;
      stalls.gcMaxMs = Math.max(stalls.gcMaxMs, after.gcMaxMs);
      stalls.servedP99Ms = Math.max(stalls.servedP99Ms, after.servedP99Ms);
      stalls.servedMaxMs = Math.max(stalls.servedMaxMs, after.servedMaxMs);
      add(postService, round);
      if (process.env.BENCH_VERBOSE) {
        const head = ascending(run.firstLatencies);
        const tail = ascending(run.latencies);
        console.log(
          `  round ${i + 1}: ${num(postService.roundRates.at(-1)!)}/s; ${after.groups} groups, ${ms(after.ms)} in commits, slowest ${ms(after.maxMs)}; ` +
            `in server p50 ${ms(after.servedP50Ms)} p99 ${ms(after.servedP99Ms)} max ${ms(after.servedMaxMs)}; loop delay max ${ms(after.loopMaxMs)}; ` +
            `gc ${ms(after.gcMs)} (max ${ms(after.gcMaxMs)})\n    client: first request per connection p50 ${ms(percentile(head, 50))} max ${ms(head.at(-1)!)}, ` +
            `others p99 ${ms(percentile(tail, 99))} max ${ms(tail.at(-1)!)}`,
        );
      }
      await emptyQueue(ids);
      await report(b);
      add(postBare, await measured(b, bareRound));
      await report(b);
      await report(f);
      add(postFloor, await measured(f, floorRun));
      await report(f);
      await emptyFloor();
    }

    // ---- GETs of existing jobs ---------------------------------------------------------
    const jobIds: string[] = [];
    for (let i = 0; i < GET_JOBS; i++) {
      const r = await api(s.url, 'POST', '/v1/completions', ring.take(), JSON.parse(SUBMISSION));
      if (r.status !== 202) throw new Error(`setup submission answered ${r.status}`);
      jobIds.push(r.body.id);
    }
    let nextJob = 0;
    const getRequests: Request[] = [
      {
        method: 'GET',
        path: '/v1/completions/x',
        setupRequest: (req) => {
          req.path = `/v1/completions/${jobIds[nextJob++ % jobIds.length]}`;
          req.headers!.authorization = `Bearer ${ring.take()}`;
          return req;
        },
      },
    ];
    const getRun = (url: string, duration: number) => load({ url, connections: CONNECTIONS, duration, requests: getRequests });
    // Each key's first request in a minute also writes its last_used_at (a commit of its own);
    // a real client has one key, not 400, so that write is paid here, untimed.
    await inPool(ring.keys, 20, (key) => api(s.url, 'GET', '/v1/completions/job_none', key));
    await getRun(s.url, GET_WARMUP_S);
    await getRun(b.url, GET_WARMUP_S);
    const getService = totals();
    const getBare = totals();
    for (let i = 0; i < GET_SEGMENTS; i++) {
      add(getService, await measured(s, () => getRun(s.url, GET_SEGMENT_S)));
      add(getBare, await measured(b, () => getRun(b.url, GET_SEGMENT_S)));
    }

    // ---- report ------------------------------------------------------------------------
    const ps = summary(postService);
    const pb = summary(postBare);
    const pf = summary(postFloor);
    const gs = summary(getService);
    const gb = summary(getBare);
    console.log(
      `\n  ${CONNECTIONS} connections; ` +
        (SUBMISSIONS ? `submissions: ${TIMED_ROUNDS} timed rounds of ${ROUND} per target, interleaved, queue emptied between rounds;\n  ` : '') +
        `GETs: ${GET_SEGMENTS} x ${GET_SEGMENT_S} s per target, interleaved, over ${GET_JOBS} queued jobs; ${KEY_COUNT} API keys used round-robin.\n`,
    );
    type Row = ReturnType<typeof summary>;
    const row = (name: string, t: Row, bareOf?: Row) => [
      name,
      num(t.rate),
      ms(t.p50),
      ms(t.p99),
      ms(t.p99All),
      num(t.non2xx),
      `${t.cpuUsPerRequest.toFixed(0)} µs (${t.mainCpuUsPerRequest.toFixed(0)})`,
      bareOf ? (t.rate / bareOf.rate).toFixed(2) : '',
      bareOf ? (bareOf.cpuUsPerRequest / t.cpuUsPerRequest).toFixed(2) : '',
    ];
    printTable([
      ['', 'req/s', 'p50', 'p99', 'p99 incl. connect', 'non-2xx', 'server CPU/req (main thread)', 'ratio to bare', 'CPU ratio'],
      ...(SUBMISSIONS ? [row('POST /v1/completions', ps, pb), row('  bare fastify POST', pb), row('  bare + durable insert', pf, pb)] : []),
      row('GET /v1/completions/{id}', gs, gb),
      row('  bare fastify GET', gb),
    ]);
    console.log(
      '\n  server CPU/req: the server process\'s CPU time (user + system, all threads; its main thread\'s in brackets) over the' +
        '\n  timed runs per response; "CPU ratio" is the bare route\'s over the service\'s, the throughput ratio a machine would' +
        '\n  give if each server had a core of its own.',
    );
    if (SUBMISSIONS) {
      console.log(
        '  "bare + durable insert": the bare route writing each job as the service does (the job store\'s insert, group commit' +
          `\n  and log flush) before its 202; the service takes ${(ps.rate / pf.rate).toFixed(2)} x its submissions/s and spends ${(ps.cpuUsPerRequest / pf.cpuUsPerRequest).toFixed(2)} x its CPU on each.`,
      );
    }
    const errors = (SUBMISSIONS ? ps.non2xx + pb.non2xx + pf.non2xx : 0) + gs.non2xx + gb.non2xx;
    if (SUBMISSIONS) reportSubmissions();
    console.log(`  statuses: GET  service {${gs.text}}  bare {${gb.text}}`);
    if (errors > 0 || cleanupFailures > 0) {
      console.log(`  ERRORS: ${errors} non-2xx responses or socket errors in the timed runs; ${cleanupFailures} failed DELETEs in cleanup. Figures are suspect.`);
    } else {
      console.log('  no errors: every timed response was 2xx');
    }

    console.log('\n  aims');
    printTable([
      ['aim', 'measured', ''],
      ...(SUBMISSIONS
        ? [
            ['submissions >= 5 000/s', num(ps.rate), verdict(ps.rate >= 5000)],
            ['submissions >= 0.7 x bare route (issue 37)', (ps.rate / pb.rate).toFixed(2), verdict(ps.rate / pb.rate >= 0.7)],
            ['submissions p99 < 20 ms (kept-alive requests)', ms(ps.p99), verdict(ps.p99 < 20)],
            ['submissions p99 < 20 ms (incl. connection set-up)', ms(ps.p99All), verdict(ps.p99All < 20)],
          ]
        : []),
      ['GETs >= 0.7 x bare route', (gs.rate / gb.rate).toFixed(2), verdict(gs.rate / gb.rate >= 0.7)],
      ['GETs p99 < 20 ms (kept-alive requests)', ms(gs.p99), verdict(gs.p99 < 20)],
      ['no non-2xx responses', num(errors), verdict(errors === 0)],
    ]);
    if (SUBMISSIONS) reportDurability();

    function reportSubmissions(): void {
      const spread = (t: Totals) => `${num(Math.min(...t.roundRates))}..${num(Math.max(...t.roundRates))}`;
      console.log('\n  req/s count from each run\'s first response to its last (connection set-up excluded).');
      console.log(
        `  p50/p99 leave out each connection's first request, which also waits for the TCP connect and accept (a new set of ${CONNECTIONS}` +
          `\n  connections per round: ${num(ps.connections)} of ${num(postService.requests)} submissions); "p99 incl. connect" counts them. ` +
          `First requests, p50: service ${ms(ps.firstP50)}, bare ${ms(pb.firstP50)}.`,
      );
      console.log(
        `  submissions/s counted from the start of each round instead: service ${num(ps.rateFromStart)}, bare ${num(pb.rateFromStart)}`,
      );
      console.log(`  per-round submissions/s: service ${spread(postService)}, bare ${spread(postBare)}, bare + durable insert ${spread(postFloor)}`);
      if (process.env.BENCH_VERBOSE) console.log(`  rounds: service ${postService.roundRates.map((r) => num(r)).join(', ')}\n          bare ${postBare.roundRates.map((r) => num(r)).join(', ')}`);
      console.log(`  statuses: POST service {${ps.text}}  bare {${pb.text}}  bare + durable insert {${pf.text}}`);
    }

    // ---- what durability costs ---------------------------------------------------------
    // Not a tmpfs comparison: the group commits of the timed rounds are counted inside the
    // service (commit-probe), and the disk's own fdatasync is timed here for context.
    function reportDurability(): void {
      const disk = fsyncProbe(dataDir);
      const perGroupMs = commits.ms / Math.max(1, commits.groups);
      console.log(`\n  durability (WAL flushed before each answer, data dir on ${kind}), timed submission rounds only`);
      printTable([
        ['', 'measured'],
        ['group commits', num(commits.groups)],
        ['submissions committed in them', num(commits.items)],
        ['average group size', (commits.items / Math.max(1, commits.groups)).toFixed(1)],
        ['largest group', num(commits.maxGroup)],
        ['time per group commit (inserts, log writes), mean', ms(perGroupMs)],
        ['flushes of the log (fdatasync, off the event loop)', num(commits.logFlushes)],
        ['slowest group commit', ms(commits.maxMs)],
        ['group commits >= 20 ms', num(commits.slow)],
        ['event-loop time in commits / wall time', `${((commits.ms * 100) / postService.wallMs).toFixed(1)} %`],
        ['server event-loop delay, max', ms(stalls.loopMaxMs)],
        ['time inside the server per submission: worst round p99 / max', `${ms(stalls.servedP99Ms)} / ${ms(stalls.servedMaxMs)}`],
        ['server GC pauses: count, total, max', `${stalls.gcCount}, ${ms(stalls.gcMs)}, ${ms(stalls.gcMaxMs)}`],
        ['fdatasync of this disk, p50: appending / in place', `${ms(disk.appendMs)} / ${ms(disk.overwriteMs)}`],
      ]);
    }
  } finally {
    await service?.stop();
    await bare?.stop();
    await floor?.stop();
    await receiver.close();
    cert.remove();
    removeDir(dataDir);
    removeDir(floorDir);
  }
}

runMain(main);
