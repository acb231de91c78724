/**
 * Where a V8 CPU profile's time went: the functions with the most self time (and with
 * --inclusive, the most time including their callees), as shares of the profile; with
 * --areas, the busy time by part of a request's path (see AREAS).
 *   node dist/bench/profile-top.js FILE.cpuprofile [--top N] [--inclusive] [--areas]
 * Made for `BENCH_CPU_PROF=DIR node dist/bench/submit-and-get.js`. The profiler samples wall
 * time: on a shared machine a function that ends in a system call that wakes another
 * process (a socket write) is charged with the time this one then waits for a core.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' }, inclusive: { type: 'boolean', default: false }, areas: { type: 'boolean', default: false } },
});
if (positionals.length !== 1) throw new Error('usage: profile-top FILE.cpuprofile [--top N] [--inclusive] [--areas]');
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as CpuProfile;

/** One name per function: its name and where it is, paths cut to the package or the build. */
const nameOf = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^.*?\/(node_modules|dist)\//, '$1/');
  return `${functionName || '(anonymous)'} ${where}${where ? `:${lineNumber + 1}` : ''}`;
};

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

// Each sample's time is the delta to the next sample; summed per node first.
const timeOf = new Map<number, number>();
profile.samples.forEach((id, i) => timeOf.set(id, (timeOf.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0)));
const total = [...timeOf.values()].reduce((a, b) => a + b, 0);

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, time] of timeOf) {
  const name = nameOf(byId.get(id)!);
  self.set(name, (self.get(name) ?? 0) + time);
  // A recursive function is counted once per sample.
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const caller = nameOf(byId.get(at)!);
    if (seen.has(caller)) continue;
    seen.add(caller);
    inclusive.set(caller, (inclusive.get(caller) ?? 0) + time);
  }
}

const print = (title: string, times: Map<string, number>) => {
  console.log(`${title} (of ${(total / 1000).toFixed(0)} ms sampled)`);
  const top = [...times].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
  for (const [name, time] of top) console.log(`${((time * 100) / total).toFixed(1).padStart(6)} %  ${name}`);
};

/**
 * The parts of a request's path, first match wins, tried on the function's name and its
 * file (as nameOf shows it). Node's own code and native calls (a socket write, SQLite, a
 * hash) have no area: their time goes to the nearest caller that has one, so a key's hash
 * counts as the key check and a socket write as fastify's reply.
 */
const AREAS: [area: string, test: RegExp][] = [
  ['Host check', /^isAllowedHost /],
  ['rate limiting', /main\/keys\/rate-limit\.js/],
  // A key's first request in a minute writes its last use (a commit); the bench pays those untimed.
  ['auth: last-use writes', /^recordUse /],
  ['auth: key check', /main\/api\/auth\.js|main\/keys\/|storage\/sqlite\/(key|account)-store\.js/],
  ['store read', /storage\/sqlite\/(job-store|object-rows)\.js|node_modules\/better-sqlite3\//],
  ['queue position, wait reason, agent name', /main\/queue\/|main\/service\/(completions|job-placement)\.js/],
  ['job object shaping', /main\/api\/(profile|routes\/completions)\.js|main\/core\/timestamps\.js/],
  ['service hooks (onRequest, onResponse)', /main\/api\/server\.js/],
  ['metrics', /main\/metrics\//],
  ['serialization', /node_modules\/(fast-json-stringify|fast-uri|json-schema-ref-resolver)\/|^(serialize|anonymous\d*) /],
  ['fastify hooks', /node_modules\/fastify\/lib\/hooks\.js/],
  ['fastify routing', /node_modules\/find-my-way\//],
  ['fastify reply (headers, send)', /node_modules\/fastify\/lib\/reply\.js/],
  ['fastify request handling', /node_modules\/fastify\//],
  ['bench instrumentation', /dist\/bench\//],
  ['other project code', /dist\/(main|test)\//],
  ['other packages', /node_modules\//],
];

/** Where one sample's time goes: the area of its innermost frame outside Node, else Node's HTTP and sockets. */
function areaOf(leaf: number): string {
  const first = byId.get(leaf)!.callFrame.functionName;
  if (first === '(idle)') return '(idle)';
  if (first === '(garbage collector)' || first === '(program)') return first;
  // The kernel's part of a write; on a busy machine also the wait for a core it ends in.
  if (/^(writev|writeBuffer|writeUtf8String|writeLatin1String)$/.test(first)) return 'socket writes (system calls)';
  for (let at: number | undefined = leaf; at !== undefined; at = parentOf.get(at)) {
    const node = byId.get(at)!;
    const { url, functionName } = node.callFrame;
    if (url.startsWith('node:') || (url === '' && !/^anonymous\d*$/.test(functionName))) continue;
    const name = nameOf(node);
    return AREAS.find(([, test]) => test.test(name))?.[0] ?? `unmatched: ${name}`;
  }
  return "Node's HTTP and sockets";
}

function printAreas(): void {
  const areas = new Map<string, number>();
  for (const [id, time] of timeOf) {
    const area = areaOf(id);
    areas.set(area, (areas.get(area) ?? 0) + time);
  }
  const busy = total - (areas.get('(idle)') ?? 0);
  console.log(`\nbusy time by area (of ${(busy / 1000).toFixed(0)} ms busy)`);
  for (const [area, time] of [...areas].filter(([a]) => a !== '(idle)').sort((a, b) => b[1] - a[1])) {
    console.log(`${((time * 100) / busy).toFixed(1).padStart(6)} %  ${(time / 1000).toFixed(0).padStart(6)} ms  ${area}`);
  }
}

print('self time', self);
if (values.inclusive) print('\ninclusive time', inclusive);
if (values.areas) printAreas();
