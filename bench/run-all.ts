/**
 * Runs every benchmark in sequence, each in its own process (`npm run bench` builds first).
 * Benchmarks print their figures against their aims; they do not fail on a missed aim.
 * The exit code is non-zero only if a benchmark crashed or hung.
 *   node dist/bench/run-all.js [name…]     e.g. node dist/bench/run-all.js idle
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHMARKS = ['submit-and-get', 'job-moves', 'wait-holds', 'idle', 'webhooks', 'agents', 'retention', 'failover', 'request-limits', 'dispatch-caps', 'cluster', 'streams', 'job-files', 'uploads', 'page-looks'];

const chosen = process.argv.slice(2);
const unknown = chosen.filter((name) => !BENCHMARKS.includes(name));
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHMARKS.join(', ')}`);
  process.exit(2);
}

/** A benchmark that runs this long has hung (each also stops itself after 200 s). */
const LIMIT_MS = 420_000;

const results: { name: string; seconds: number; ok: boolean }[] = [];
for (const name of chosen.length ? chosen : BENCHMARKS) {
  const script = fileURLToPath(new URL(`./${name}.js`, import.meta.url));
  const started = performance.now();
  const run = spawnSync(process.execPath, [script], { stdio: 'inherit', timeout: LIMIT_MS, killSignal: 'SIGTERM' });
  if (run.error || run.signal) console.log(`\n  ${name} ${run.signal ? `was killed after ${LIMIT_MS / 1000} s` : `failed to start: ${run.error?.message}`}`);
  results.push({ name, seconds: (performance.now() - started) / 1000, ok: run.status === 0 });
}

console.log('\n=== summary ' + '='.repeat(68));
for (const r of results) console.log(`  ${r.name.padEnd(16)} ${r.seconds.toFixed(1).padStart(6)} s   ${r.ok ? 'ran' : 'CRASHED or HUNG (see its output above)'}`);
if (results.some((r) => !r.ok)) process.exitCode = 1;
