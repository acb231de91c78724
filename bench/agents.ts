/**
 * Browser agents against the simulated sites, end to end through `serve --simulate`:
 * - overhead: from the page showing the answer finished to the API's response (aim < 10 ms
 *   p50), and from submission to the prompt reaching the page for an idle agent (aim < 50 ms p50; issue 37);
 * - throughput with instant answers, six agents against one (it should scale with the agents);
 * - six idle agents: CPU of the service and its browsers over 60 s once they have settled
 *   (aim < 1 % of a core), and memory per agent (PSS, so shared pages are not counted six
 *   times; aim < 100 MB: the agents share one browser, a context each). Settled means
 *   150 s after the agents are ready: for about two minutes after a start, Chromium runs
 *   its deferred start-up work (profile and history databases, GPU info, the page's first
 *   garbage collections) and Node.js its own, a one-off that cost 2 to 3 times the idle
 *   figure; the first minute (from 5 s after ready) is printed beside it. Both are split by
 *   process kind (the service; the browsers' main, renderer, GPU and utility processes), so
 *   a regression points at its process.
 *
 *   node dist/bench/agents.js [overhead] [throughput] [idle]     (no name: all three)
 */
import { readFileSync } from 'node:fs';
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
  printMachineLoad,
  printTable,
  runMain,
  sleep,
  startServer,
  tempDataDir,
  tree,
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
  return { server, key, simUrl: /chatgpt (http[^\s,]+)/.exec(sites)![1]! };
}

const simLog = async (sim: Simulation) => (await (await fetch(`${sim.simUrl}/__sim/log`)).json()) as SimLog;

async function overhead(): Promise<void> {
  heading('Overhead, one idle ChatGPT agent, 30 jobs one after another');
  await printMachineLoad();
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
      ['submission → prompt in the page', ms(percentile(toPage, 50)), ms(percentile(toPage, 99)), `< 50 ms p50 ${verdict(percentile(toPage, 50) < 50)}`],
      ['answer finished → API response', ms(percentile(afterFinish, 50)), ms(percentile(afterFinish, 99)), `< 10 ms p50 ${verdict(percentile(afterFinish, 50) < 10)}`],
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

/** What a process is: the service, or a Chromium process by its `--type` (the browser's own has none). */
function kindOf(pid: number, service: number): string {
  if (pid === service) return 'service (node)';
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    const type = /--type=(\S+)/.exec(cmdline)?.[1];
    if (!type) return 'browser main';
    if (type === 'utility') return `utility: ${/--utility-sub-type=(?:\w+\.)*(\w+)/.exec(cmdline)?.[1] ?? '?'}`;
    return type === 'gpu-process' ? 'GPU' : type;
  } catch {
    return 'exited';
  }
}

/** CPU ticks of each process kind over a window, with how many processes it had. */
type ByKind = Map<string, { processes: number; ticks: number }>;

async function cpuByKind(pids: number[], service: number, windowMs: number): Promise<ByKind> {
  const before = new Map(pids.map((pid) => [pid, ticks([pid])]));
  await sleep(windowMs);
  const byKind: ByKind = new Map();
  for (const pid of pids) {
    const kind = kindOf(pid, service);
    const entry = byKind.get(kind) ?? { processes: 0, ticks: 0 };
    entry.processes++;
    entry.ticks += Math.max(0, ticks([pid]) - before.get(pid)!);
    byKind.set(kind, entry);
  }
  return byKind;
}

async function idle(): Promise<void> {
  const agents = 6;
  const windowMs = 60_000;
  heading('Six idle agents: the first minute, and 60 s once settled');
  const sim = await simulate(agents);
  try {
    const ready = Date.now();
    await sleep(5_000);
    const pids = tree(sim.server.pid);
    const first = await cpuByKind(pids, sim.server.pid, windowMs);
    await sleep(ready + 150_000 - Date.now());
    const settled = await cpuByKind(pids, sim.server.pid, windowMs);
    const hz = clockTicksPerSecond();
    const percent = (t: number) => (t / hz / (windowMs / 1000)) * 100;
    const total = (byKind: ByKind) => percent([...byKind.values()].reduce((s, e) => s + e.ticks, 0));
    const perAgent = (byKind: ByKind) => (total(byKind) - percent(byKind.get('service (node)')?.ticks ?? 0)) / agents;
    const serviceMb = pssKiB(sim.server.pid) / 1024;
    const browsersMb = pids.slice(1).reduce((s, p) => s + pssKiB(p), 0) / 1024;
    printTable([
      ['processes (service + browsers)', String(pids.length)],
      ['CPU, all of them, settled', `${num(total(settled), 2)} % of a core  (aim < 1 % ${verdict(total(settled) < 1)})`],
      ['CPU per agent (its browser), settled', `${num(perAgent(settled), 3)} % of a core`],
      ['CPU, all of them, first minute', `${num(total(first), 2)} % of a core  (start-up work)`],
      ['CPU per agent, first minute', `${num(perAgent(first), 3)} % of a core`],
      ['memory of the service (PSS)', `${num(serviceMb, 0)} MB`],
      ['memory per agent (browser PSS / 6)', `${num(browsersMb / agents, 0)} MB  (aim < 100 MB ${verdict(browsersMb / agents < 100)})`],
    ]);
    console.log('');
    const both = (kind: string) => (first.get(kind)?.ticks ?? 0) + (settled.get(kind)?.ticks ?? 0);
    const kinds = [...new Set([...first.keys(), ...settled.keys()])].sort((a, b) => both(b) - both(a));
    const cell = (byKind: ByKind, kind: string) => {
      const t = byKind.get(kind)?.ticks ?? 0;
      return kind === 'service (node)' ? num(percent(t), 2) : `${num(percent(t), 2)} (${num(percent(t) / agents, 3)})`;
    };
    printTable([
      ['% of a core (per agent)', 'processes', 'first minute', 'settled'],
      ...kinds.map((kind) => [kind, String(first.get(kind)?.processes ?? settled.get(kind)!.processes), cell(first, kind), cell(settled, kind)]),
    ]);
  } finally {
    await sim.server.stop();
  }
}

async function scaling(): Promise<void> {
  heading('Throughput with instant answers');
  const one = await throughput(1, 30);
  const six = await throughput(6, 90);
  printTable([
    ['agents', 'jobs/s', 'vs one agent'],
    ['1', num(one, 1), '1.00'],
    ['6', num(six, 1), `${num(six / one, 2)} (ideal 6; 2 cores here)`],
  ]);
}

const SECTIONS: Record<string, () => Promise<void>> = { overhead, throughput: scaling, idle };
const chosen = process.argv.slice(2);
const unknown = chosen.filter((name) => !(name in SECTIONS));
if (unknown.length) {
  console.error(`unknown section(s): ${unknown.join(', ')}; known: ${Object.keys(SECTIONS).join(', ')}`);
  process.exit(2);
}

runMain(async () => {
  for (const name of chosen.length ? chosen : Object.keys(SECTIONS)) await SECTIONS[name]!();
}, 400_000);
