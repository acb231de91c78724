/**
 * Where a V8 CPU profile's time went: the functions with the most self time (and with
 * --inclusive, the most time including their callees), as shares of the profile.
 *   node dist/bench/profile-top.js FILE.cpuprofile [--top N] [--inclusive]
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
  options: { top: { type: 'string', default: '30' }, inclusive: { type: 'boolean', default: false } },
});
if (positionals.length !== 1) throw new Error('usage: profile-top FILE.cpuprofile [--top N] [--inclusive]');
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as CpuProfile;

/** One name per function: its name and where it is, paths cut to the package or the build. */
const nameOf = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^.*\/(node_modules\/|dist\/)/, '$1');
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
print('self time', self);
if (values.inclusive) print('\ninclusive time', inclusive);
