/**
 * 2 000 concurrent `wait: true` holds: the service's extra memory while they are held, and
 * the time from a job's completion to its waiter's response.
 *
 * Design.
 * - The contract caps the queue at 1 000 jobs, so 2 000 jobs can only be held at once if
 *   more than 1 000 of them are running. The scripted server gets AGENTS agents (scripted
 *   agents are plain objects, not browsers): the first AGENTS jobs run at once, the rest
 *   wait in the queue (2 000 - AGENTS of them, under the cap). Every prompt carries
 *   `[[ms=ANSWER_MS]]`, far longer than it takes to submit all 2 000, so none finishes
 *   before the last is accepted. "All held" is checked, not assumed: GET /v1/status must
 *   show queue depth + busy agents = 2 000 while no response has arrived yet.
 * - Memory: VmRSS of the server process, median of samples after a warm-up (the code paths
 *   are loaded and JIT-compiled by a few hundred short jobs) versus median of samples while
 *   all 2 000 are held; the extra is what the holds (and their jobs in flight) cost.
 * - Completion to response: the API's `finished_at` has whole seconds only, so it cannot
 *   time a delay of a few ms. The service records the moment it settles a job in its
 *   database in epoch ms (jobs.finished_at, taken just before the job's final commit), and
 *   the server and this process read the same system clock. So each response's arrival
 *   time here (Date.now() when its last byte is read) minus that job's finished_at, read
 *   from the database after the run, is the completion-to-response time, to the
 *   millisecond. It includes the final commit's fsync, waking the waiter, serialising and
 *   sending the answer, and reading it here.
 *   A second figure starts earlier: the agent's scripted answer time (attempt start +
 *   ANSWER_MS, from the attempts table) to the response. It also counts timer lateness
 *   and time queued behind other completions in the server's event loop.
 *
 *   node dist/bench/wait-holds.js
 */
import Database from 'better-sqlite3';
import http from 'node:http';
import { join } from 'node:path';
import {
  KeyRing,
  SCRIPTED_SERVER,
  ascending,
  createKeys,
  heading,
  mean,
  ms,
  num,
  openFilesLimit,
  percentile,
  printMachineLoad,
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

const HOLDS = 2000;
const AGENTS = 1200;
const ANSWER_MS = 6000;
const KEY_COUNT = 50; // 2 300 writes in all: under 600 a minute per key
const WARMUP_JOBS = 300;
const LAUNCH_BATCH = 100; // requests started every LAUNCH_EVERY_MS, to stay under the listen backlog
const LAUNCH_EVERY_MS = 25;

interface Answer {
  status: number;
  body: string;
  receivedAt: number;
}

function send(agent: http.Agent, base: string, method: string, path: string, key: string, body?: unknown): Promise<Answer> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      base + path,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          ...(data === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const median = (values: number[]) => percentile(ascending(values), 50);

async function main(): Promise<void> {
  heading(`wait-holds: ${num(HOLDS)} concurrent wait:true holds`);
  await printMachineLoad();
  const limit = openFilesLimit();
  const needed = HOLDS * 2 + 500;
  console.log(
    `  open files limit (ulimit -n): ${limit}` +
      (limit < needed ? `  WARNING: below ~${needed} (client and server sockets); raise it with ulimit -n ${needed * 2}` : ''),
  );
  const dataDir = tempDataDir('holds');
  const ring = new KeyRing(await createKeys(dataDir, KEY_COUNT));
  const agent = new http.Agent({ keepAlive: true, maxSockets: HOLDS + 200 });
  let server: Server | undefined;
  const rssSamples: { at: number; kib: number }[] = [];
  let sampler: NodeJS.Timeout | undefined;
  try {
    const startAt = performance.now();
    server = await startServer(SCRIPTED_SERVER, ['--data-dir', dataDir, '--port', '0', '--agents', `chatgpt=${AGENTS}`]);
    const s = server;
    console.log(`  scripted server with ${AGENTS} agents started in ${ms(performance.now() - startAt)}; answers after ${ANSWER_MS} ms`);

    // Warm-up: short jobs through the same path, then let the heap settle.
    const warm = await Promise.all(
      Array.from({ length: WARMUP_JOBS }, (_, i) => send(agent, s.url, 'POST', '/v1/completions', ring.take(), { prompt: `warm-up ${i}`, wait: true })),
    );
    const warmFailures = warm.filter((a) => a.status !== 200).length;
    if (warmFailures) console.log(`  WARNING: ${warmFailures} warm-up submissions did not answer 200 (first: ${warm.find((a) => a.status !== 200)!.body})`);
    await sleep(1500);
    const baseline: number[] = [];
    for (let i = 0; i < 5; i++) {
      baseline.push(rssKiB(s.pid));
      await sleep(200);
    }
    const baselineKiB = median(baseline);

    sampler = setInterval(() => {
      try {
        rssSamples.push({ at: performance.now(), kib: rssKiB(s.pid) });
      } catch {
        /* the server is gone; the run reports that */
      }
    }, 100);

    // ---- the holds -----------------------------------------------------------------------
    const launchedAt = performance.now();
    let answered = 0;
    const holds: { id?: string; promise: Promise<Answer> }[] = [];
    for (let i = 0; i < HOLDS; i += LAUNCH_BATCH) {
      for (let j = i; j < Math.min(HOLDS, i + LAUNCH_BATCH); j++) {
        const promise = send(agent, s.url, 'POST', '/v1/completions', ring.take(), { prompt: `hold ${j} [[ms=${ANSWER_MS}]]`, wait: true });
        void promise.then(() => answered++, () => answered++);
        holds.push({ promise });
      }
      await sleep(LAUNCH_EVERY_MS);
    }
    const launchMs = performance.now() - launchedAt;

    // All held? queued + running = HOLDS, and nothing answered yet.
    let heldAt: number | null = null;
    let inFlight = 0;
    while (performance.now() - launchedAt < ANSWER_MS - 500) {
      const status = await send(agent, s.url, 'GET', '/v1/status', ring.take());
      const report = JSON.parse(status.body) as { queue: { depth: number }; agents: { busy: number } };
      inFlight = report.queue.depth + report.agents.busy;
      if (inFlight >= HOLDS && answered === 0) {
        heldAt = performance.now();
        break;
      }
      await sleep(100);
    }
    const held: number[] = [];
    if (heldAt !== null) {
      for (let i = 0; i < 5; i++) {
        held.push(rssKiB(s.pid));
        await sleep(150);
      }
    }
    const answeredWhileSampling = answered;
    const heldKiB = held.length ? median(held) : NaN;

    // A hold that never answers must not hang the benchmark: past this point the remaining
    // requests are cut (their sockets destroyed) and counted as errors.
    const giveUp = setTimeout(() => agent.destroy(), 3 * ANSWER_MS + 30_000);
    const answers = await Promise.allSettled(holds.map((h) => h.promise));
    clearTimeout(giveUp);
    const doneMs = performance.now() - launchedAt;
    clearInterval(sampler);
    sampler = undefined;

    // ---- completion to response ----------------------------------------------------------
    const ok: { id: string; receivedAt: number }[] = [];
    const failures = new Map<string, number>();
    for (const a of answers) {
      if (a.status === 'rejected') {
        const why = `socket error: ${(a.reason as Error).message}`;
        failures.set(why, (failures.get(why) ?? 0) + 1);
      } else if (a.value.status !== 200) {
        const why = `${a.value.status} ${(JSON.parse(a.value.body) as { error?: { code?: string } }).error?.code ?? ''}`;
        failures.set(why, (failures.get(why) ?? 0) + 1);
      } else {
        ok.push({ id: (JSON.parse(a.value.body) as { id: string }).id, receivedAt: a.value.receivedAt });
      }
    }
    const db = new Database(join(dataDir, 'chatbridge.db'), { readonly: true, fileMustExist: true });
    const row = db.prepare(
      `SELECT j.finished_at AS finished_at, a.started_at AS started_at FROM jobs j JOIN attempts a ON a.job_id = j.id AND a.attempt = j.attempts WHERE j.id = ?`,
    );
    const toResponse: number[] = [];
    const fromAnswer: number[] = [];
    for (const o of ok) {
      const r = row.get(o.id) as { finished_at: number; started_at: number } | undefined;
      if (!r) continue;
      toResponse.push(o.receivedAt - r.finished_at);
      fromAnswer.push(o.receivedAt - (r.started_at + ANSWER_MS));
    }
    const span = (sql: string) => {
      const r = db.prepare(sql).get() as { first: number; last: number };
      return r.last - r.first;
    };
    const acceptedSpan = span(`SELECT MIN(created_at) AS first, MAX(created_at) AS last FROM jobs WHERE prompt LIKE 'hold %'`);
    const firstWaveSpan = span(
      `SELECT MIN(a.started_at) AS first, MAX(a.started_at) AS last FROM attempts a JOIN jobs j ON j.id = a.job_id
       WHERE j.prompt LIKE 'hold %' AND a.started_at < (SELECT MIN(created_at) FROM jobs WHERE prompt LIKE 'hold %') + ${ANSWER_MS}`,
    );
    const finishedSpan = span(`SELECT MIN(finished_at) AS first, MAX(finished_at) AS last FROM jobs WHERE prompt LIKE 'hold %'`);
    db.close();

    // ---- report --------------------------------------------------------------------------
    const peakKiB = Math.max(...rssSamples.map((r) => r.kib));
    const extraKiB = heldKiB - baselineKiB;
    const c2r = ascending(toResponse);
    const a2r = ascending(fromAnswer);
    console.log(
      `  ${num(HOLDS)} submissions started over ${ms(launchMs)} (${LAUNCH_BATCH} every ${LAUNCH_EVERY_MS} ms), ${KEY_COUNT} keys; ` +
        `all answered ${ms(doneMs)} after the first`,
    );
    if (heldAt === null) {
      console.log(`  WARNING: never saw all ${HOLDS} held at once (last count in flight: ${inFlight}, answered: ${answered}); memory figures are missing`);
    } else {
      console.log(
        `  all ${HOLDS} held at once ${ms(heldAt - launchedAt)} after the first submission (queue depth + busy agents = ${inFlight}, ` +
          `${answeredWhileSampling} answered while sampling memory)`,
      );
    }
    console.log(
      `  server side (database, ms): accepted over ${ms(acceptedSpan)}; first ${AGENTS} dispatched over ${ms(firstWaveSpan)}; ` +
        `completions spread over ${ms(finishedSpan)} (two waves: ${AGENTS} running, then the queued ${HOLDS - AGENTS})\n`,
    );
    printTable([
      ['', 'measured', 'aim', ''],
      ['server RSS after warm-up', `${num(baselineKiB / 1024, 1)} MiB`, '', ''],
      [`server RSS with ${HOLDS} held`, `${num(heldKiB / 1024, 1)} MiB`, '', ''],
      ['extra RSS for the holds', `${num(extraKiB / 1024, 1)} MiB`, '', ''],
      ['extra RSS per hold', `${num(extraKiB / HOLDS, 1)} KiB`, '', ''],
      ['server RSS peak during the run', `${num(peakKiB / 1024, 1)} MiB`, '', ''],
      ['completion -> response, p50', ms(percentile(c2r, 50)), '', ''],
      ['completion -> response, p99', ms(percentile(c2r, 99)), '< 20 ms', verdict(percentile(c2r, 99) < 20)],
      ['completion -> response, max', ms(c2r[c2r.length - 1] ?? NaN), '', ''],
      ['completion -> response, mean', ms(mean(toResponse)), '', ''],
      ['scripted answer -> response, p50', ms(percentile(a2r, 50)), '', ''],
      ['scripted answer -> response, p99', ms(percentile(a2r, 99)), '', ''],
      ['responses 200 / measured', `${num(ok.length)} / ${num(toResponse.length)}`, `${num(HOLDS)}`, verdict(ok.length === HOLDS && toResponse.length === HOLDS)],
    ]);
    if (failures.size) {
      console.log(`  ERRORS: ${[...failures].map(([why, n]) => `${why}: ${n}`).join(', ')}`);
    } else {
      console.log('  no errors: every hold answered 200 with its succeeded job');
    }
  } finally {
    if (sampler) clearInterval(sampler);
    agent.destroy();
    await server?.stop();
    removeDir(dataDir);
  }
}

runMain(main);
