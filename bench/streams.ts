/**
 * Event streams (issue 33): 200 open GET /v1/completions/{id}/events streams on one instance
 * (20 jobs running at once, 10 followers each), the delay from the page's render to the delta
 * at the client, and the memory the streams take. The agents (bench/stream-server.ts) tell
 * each piece with the moment they told it, standing for the page's render; the delay is from
 * there to the client's reading of it (the same machine's clock), through the store, the
 * follower and the socket. One stream alone first, for the floor. RSS of the service with no
 * stream, with 200 open mid-answer, and after they ended. Aim: p99 under 250 ms, the period
 * at which an agent reads the rendering page (answer-deltas.ts FOLLOW_MS): the service adds
 * less delay than the page's own reading does.
 *
 *   node dist/bench/streams.js
 */
import { request } from 'node:http';
import {
  api,
  ascending,
  createKeys,
  heading,
  KeyRing,
  ms,
  num,
  percentile,
  printMachineLoad,
  printTable,
  removeDir,
  rssKiB,
  ROOT,
  runMain,
  sleep,
  startServer,
  tempDataDir,
  verdict,
} from './support.js';
import { join } from 'node:path';

const JOBS = 20;
const FOLLOWERS = 10;
const PIECES = 20;
const EVERY_MS = 100;
/** The agents wait this long before the first piece, so every follower is connected by then. */
const FIRST_MS = 2_000;
const epochMs = () => performance.timeOrigin + performance.now();

/** Follows one job to its end; resolves with each piece's delay (ms) from its telling to its receipt here. */
function follow(url: string, key: string, id: string, opened: () => void): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const delays: number[] = [];
    const req = request(`${url}/v1/completions/${id}/events`, { headers: { authorization: `Bearer ${key}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`events of ${id}: ${res.statusCode}`));
      opened();
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        const now = epochMs();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!block.includes('event: delta')) continue;
          for (const m of block.matchAll(/⟨(\d+\.\d+)⟩/g)) delays.push(now - Number(m[1]));
        }
      });
      res.on('end', () => resolve(delays));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Submits `jobs` jobs, follows each with `followers` streams; resolves with the delays, and the RSS once all streams were open mid-answer. */
async function round(url: string, keys: KeyRing, pid: number, jobs: number, followers: number): Promise<{ delays: number[]; rssOpen: number }> {
  const ids: string[] = [];
  for (let j = 0; j < jobs; j++) {
    const r = await api(url, 'POST', '/v1/completions', keys.take(), { prompt: `clock=${PIECES}/${EVERY_MS}/${FIRST_MS} #${j}`, wait: false, callback_url: 'https://hooks.example/x' });
    if (r.status !== 202) throw new Error(`submit: ${r.status} ${JSON.stringify(r.body)}`);
    ids.push(r.body.id as string);
  }
  let open = 0;
  const all = ids.flatMap((id) => Array.from({ length: followers }, () => follow(url, keys.take(), id, () => open++)));
  while (open < jobs * followers) await sleep(20);
  // Mid-answer: every stream open, pieces flowing.
  await sleep(FIRST_MS + (PIECES * EVERY_MS) / 2);
  const rssOpen = rssKiB(pid);
  return { delays: (await Promise.all(all)).flat(), rssOpen };
}

async function main(): Promise<void> {
  heading(`streams: ${JOBS * FOLLOWERS} event streams (${JOBS} jobs × ${FOLLOWERS} followers), render to client delay, memory`);
  await printMachineLoad();
  const dataDir = tempDataDir('streams');
  const keys = new KeyRing(await createKeys(dataDir, 4));
  const server = await startServer(join(ROOT, 'dist/bench/stream-server.js'), ['--data-dir', dataDir, '--agents', String(JOBS)]);
  try {
    await sleep(2_000);
    const rssIdle = rssKiB(server.pid);
    const alone = await round(server.url, keys, server.pid, 1, 1);
    const many = await round(server.url, keys, server.pid, JOBS, FOLLOWERS);
    await sleep(1_000);
    const rssAfter = rssKiB(server.pid);
    const a = ascending(alone.delays);
    const m = ascending(many.delays);
    const expected = JOBS * FOLLOWERS * PIECES;
    console.log(`  ${PIECES} pieces ${EVERY_MS} ms apart per job; ${m.length} of ${expected} pieces timed at the clients\n`);
    printTable([
      ['render → delta at the client', 'p50', 'p99', 'max', 'aim', ''],
      ['1 stream', ms(percentile(a, 50)), ms(percentile(a, 99)), ms(a.at(-1)!), '', ''],
      [`${JOBS * FOLLOWERS} streams`, ms(percentile(m, 50)), ms(percentile(m, 99)), ms(m.at(-1)!), 'p99 < 250 ms', verdict(percentile(m, 99) < 250)],
    ]);
    console.log('');
    const mib = (kib: number) => `${num(kib / 1024, 1)} MiB`;
    printTable([
      ['service RSS', 'measured', ''],
      ['no stream open', mib(rssIdle), ''],
      [`${JOBS * FOLLOWERS} streams open, mid-answer`, mib(many.rssOpen), `+${mib(many.rssOpen - rssIdle)}, ${num((many.rssOpen - rssIdle) / (JOBS * FOLLOWERS), 0)} KiB a stream`],
      ['after they ended', mib(rssAfter), ''],
    ]);
    if (m.length !== expected) console.log(`  WARNING: ${expected - m.length} pieces were not seen by a client`);
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
}

runMain(main, 120_000);
