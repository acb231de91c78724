/**
 * Browser agents against the simulated sites, end to end through `serve --simulate`:
 * - overhead: from the page showing the answer finished to the API's response (aim < 100 ms
 *   p50), and from submission to the prompt reaching the page for an idle agent (aim < 300 ms p50);
 * - throughput with instant answers, six agents against one (it should scale with the agents);
 * - six idle agents over 60 s: CPU of the service and its browsers (aim < 1 % of a core),
 *   and memory per agent (PSS, so shared pages are not counted six times).
 */
import { readdirSync, readFileSync } from 'node:fs';
import {
  api,
  ascending,
  clockTicksPerSecond,
  CLI,
  cpuTicks,
  heading,
  inPool,
  ms,
  num,
  percentile,
  printTable,
  runMain,
  sleep,
  startServer,
  tempDataDir,
  verdict,
  type Server,
} from './support.js';

interface Simulation {
  server: Server;
  key: string;
  simUrl: string;
}

interface SimLog {
  sends: { prompt: string; at: number }[];
  finishes: { conversationId: string; turn: number; at: number }[];
}

async function simulate(agents: number): Promise<Simulation> {
  const server = await startServer(CLI, ['serve', '--simulate-agents', `chatgpt=${agents}`, '--port', '0', '--data-dir', tempDataDir('agents')], {
    timeoutMs: 60_000,
  });
  const [sites, key] = await Promise.all([server.nextLine(/^simulated providers:/, undefined, 60_000), server.nextLine(/^cb_/, undefined, 60_000)]);
  return { server, key, simUrl: /chatgpt (\S+)/.exec(sites)![1]! };
}

const simLog = async (sim: Simulation) => (await (await fetch(`${sim.simUrl}/__sim/log`)).json()) as SimLog;

async function overhead(): Promise<void> {
  heading('Overhead, one idle ChatGPT agent, 30 jobs one after another');
  const sim = await simulate(1);
  try {
    const submitted = new Map<string, number>();
    const answered = new Map<string, { at: number; conversation: string }>();
    for (let i = 0; i < 30; i++) {
      const prompt = `overhead ${i} [[sim:ms=200]]`;
      await sleep(200); // let the agent open its fresh chat: "an idle agent"
      submitted.set(prompt, Date.now());
      const r = await api(sim.server.url, 'POST', '/v1/completions', sim.key, { prompt, provider: 'chatgpt' });
      if (r.status !== 200) throw new Error(`job failed: ${r.status} ${JSON.stringify(r.body)}`);
      answered.set(prompt, { at: Date.now(), conversation: r.body.conversation_ref });
    }
    const log = await simLog(sim);
    const toPage = ascending(log.sends.filter((s) => submitted.has(s.prompt)).map((s) => s.at - submitted.get(s.prompt)!));
    // Each job is a new conversation with one turn: finishes come in the jobs' order.
    const finishes = log.finishes.map((f) => f.at);
    const afterFinish = ascending([...answered.values()].map((a, i) => a.at - finishes[i]!));
    printTable([
      ['', 'p50', 'p99', 'aim'],
      ['submission → prompt in the page', ms(percentile(toPage, 50)), ms(percentile(toPage, 99)), `< 300 ms p50 ${verdict(percentile(toPage, 50) < 300)}`],
      ['answer finished → API response', ms(percentile(afterFinish, 50)), ms(percentile(afterFinish, 99)), `< 100 ms p50 ${verdict(percentile(afterFinish, 50) < 100)}`],
    ]);
  } finally {
    await sim.server.stop();
  }
}

async function throughput(agents: number, jobs: number): Promise<number> {
  const sim = await simulate(agents);
  try {
    const started = performance.now();
    const results = await inPool(
      Array.from({ length: jobs }, (_, i) => i),
      agents * 2,
      (i) => api(sim.server.url, 'POST', '/v1/completions', sim.key, { prompt: `instant ${i} [[sim:ms=0]]`, provider: 'chatgpt' }),
    );
    const failed = results.filter((r) => r.status !== 200).length;
    if (failed) console.log(`  ${failed} of ${jobs} jobs failed`);
    return jobs / ((performance.now() - started) / 1000);
  } finally {
    await sim.server.stop();
  }
}

/** The process and every process below it (the browsers). */
function tree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, ppid] of parents) if (ppid === found[i]) found.push(pid);
  return found;
}

function pssKiB(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

const ticks = (pids: number[]) =>
  pids.reduce((sum, pid) => {
    try {
      return sum + cpuTicks(pid);
    } catch {
      return sum;
    }
  }, 0);

async function idle(): Promise<void> {
  heading('Six idle agents over 60 s');
  const sim = await simulate(6);
  try {
    await sleep(5_000);
    const pids = tree(sim.server.pid);
    const before = ticks(pids);
    await sleep(60_000);
    const cpu = ((ticks(pids) - before) / clockTicksPerSecond() / 60) * 100;
    const serviceMb = pssKiB(sim.server.pid) / 1024;
    const browsersMb = pids.slice(1).reduce((s, p) => s + pssKiB(p), 0) / 1024;
    printTable([
      ['processes (service + browsers)', String(pids.length)],
      ['CPU, all of them', `${num(cpu, 2)} % of a core  (aim < 1 % ${verdict(cpu < 1)})`],
      ['memory of the service (PSS)', `${num(serviceMb, 0)} MB`],
      ['memory per agent (browser PSS / 6)', `${num(browsersMb / 6, 0)} MB`],
    ]);
  } finally {
    await sim.server.stop();
  }
}

runMain(async () => {
  await overhead();
  heading('Throughput with instant answers');
  const one = await throughput(1, 30);
  const six = await throughput(6, 90);
  printTable([
    ['agents', 'jobs/s', 'vs one agent'],
    ['1', num(one, 1), '1.00'],
    ['6', num(six, 1), `${num(six / one, 2)} (ideal 6; 2 cores here)`],
  ]);
  await idle();
}, 400_000);
