/**
 * Webhook delivery to a fast local HTTPS receiver: a receiver in its own process (self-
 * signed certificate, answers 204 at once, reports each arrival) and the service in this
 * one, so the moment a job becomes final is observed exactly.
 *
 * - Latency: one job at a time, the receiver idle: from the commit that makes the job final
 *   (its final job event) to the webhook's whole body arriving. Aim: p50 under 50 ms.
 * - Throughput: 900 queued jobs become final in one transaction (their deadlines pass
 *   together; "final txn" is that transaction, the queue's work, which blocks the loop
 *   once); deliveries per second until the last arrives, with this process's event-loop
 *   delay and the latency of GET /v1/status meanwhile (delivery must not slow the API).
 *
 *   node dist/bench/webhooks.js
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { systemClock, type Clock } from '../main/core/clock.js';
import { Service } from '../main/service/service.js';
import { buildServer } from '../main/api/server.js';
import { httpsTransport } from '../main/webhooks/https-transport.js';
import { DEFAULT_LIMITS } from '../main/webhooks/sender.js';
import { attachScriptedAgents } from '../test/support/scripted-agent.js';
import { makeCertificate } from '../test/support/webhook-receiver.js';
import { ascending, heading, inPool, KeyRing, ms, num, percentile, printMachineLoad, printTable, removeDir, runMain, sleep, tempDataDir, verdict } from './support.js';

const LATENCY_SAMPLES = 200;
const BURST = 900; // below the 1 000-queued-jobs limit
const BURST_ROUNDS = 3;

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
const wallNow = () => performance.timeOrigin + performance.now();

interface Arrival {
  id: string;
  at: number;
}

// ---- the receiver, in its own process ------------------------------------------------------

/** `--receiver KEY CERT`: answers every POST 204 and reports `{ id, at }` to the parent. */
function receiver(keyFile: string, certFile: string): void {
  const server = createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile), keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = wallNow();
      res.writeHead(204).end();
      process.send!({ id: (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id, at } satisfies Arrival);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!({ url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook` }));
  process.on('disconnect', () => process.exit(0));
}

// ---- the benchmark ---------------------------------------------------------------------------

async function main(): Promise<void> {
  heading('webhooks: delivery to a fast local HTTPS receiver');
  await printMachineLoad();
  const cert = makeCertificate();
  const child = fork(fileURLToPath(import.meta.url), ['--receiver', cert.keyFile, cert.certFile], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const arrivals = new Map<string, number[]>();
  const waiters = new Map<string, () => void>();
  const callbackUrl = await new Promise<string>((resolve) => {
    child.on('message', (m: Arrival | { url: string }) => {
      if ('url' in m) return resolve(m.url);
      const list = arrivals.get(m.id) ?? [];
      list.push(m.at);
      arrivals.set(m.id, list);
      waiters.get(m.id)?.();
    });
  });
  const arrived = (id: string) => new Promise<void>((resolve) => (arrivals.has(id) ? resolve() : waiters.set(id, resolve)));

  const dataDir = tempDataDir('webhooks');
  // The system clock, but one the burst can move forward past the jobs' deadlines at once.
  let skew = 0;
  const clock: Clock = { now: () => Date.now() + skew, setTimer: systemClock.setTimer };
  const service = await Service.start({ dataDir, http: buildServer, port: 0, clock, webhookTransport: httpsTransport({ ca: cert.cert }) });
  try {
    attachScriptedAgents(service, { chatgpt: 1 });
    // Writes are limited to 600 a minute per key: enough keys for every submission here.
    const keys = new KeyRing(
      await Promise.all(
        Array.from({ length: 8 }, async (_, i) => (await service.keys.create({ name: `bench-${i}`, scopes: ['completions:read', 'completions:write'], expiresAt: null })).secret),
      ),
    );
    const submit = async (body: Record<string, unknown>): Promise<string> => {
      const res = await fetch(`${service.baseUrl}/v1/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.take()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ wait: false, callback_url: callbackUrl, ...body }),
      });
      if (res.status !== 202) throw new Error(`submission answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    };

    // -- latency, one job at a time ---------------------------------------------------------
    const latencies: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      // The agent answers after 20 ms, so the final event is listened for before it comes.
      const id = await submit({ prompt: `latency ${i} [[ms=20]]` });
      const finalAt = await new Promise<number>((resolve) => {
        const stop = service.events.subscribe(id, (job) => {
          if (job.status === 'succeeded') {
            stop();
            resolve(wallNow());
          }
        });
      });
      await arrived(id);
      latencies.push(arrivals.get(id)![0]! - finalAt);
      await sleep(5); // the receiver idle before the next
    }
    const [first, ...warm] = latencies;
    const sorted = ascending(warm);
    heading(`latency: job final → webhook arrived (${LATENCY_SAMPLES} jobs, one at a time)`);
    printTable([
      ['', 'p50', 'p90', 'p99', 'max'],
      ['kept-alive connection', ms(percentile(sorted, 50)), ms(percentile(sorted, 90)), ms(percentile(sorted, 99)), ms(sorted.at(-1)!)],
    ]);
    console.log(`  first delivery (new TCP + TLS connection): ${ms(first!)}`);
    console.log(`  aim: p50 under 50 ms: ${verdict(percentile(sorted, 50) < 50)}`);

    // -- throughput: a burst finishing in one transaction -------------------------------------
    heading(`throughput: ${BURST} jobs final in one transaction (per-origin limit ${DEFAULT_LIMITS.perOrigin} in flight)`);
    await service.settings.setPaused(true);
    const rows: string[][] = [
      ['round', 'final txn', 'deliveries/s', 'last arrival', 'duplicates', 'loop delay p99', 'loop delay max', 'GET /v1/status p50', 'max'],
    ];
    for (let round = 1; round <= BURST_ROUNDS; round++) {
      const ids = await inPool(Array.from({ length: BURST }, (_, i) => i), 20, (i) => submit({ prompt: `burst ${round}-${i}`, deadline_ms: 10_000 }));
      await sleep(200);
      const loop = monitorEventLoopDelay({ resolution: 1 });
      const probes: number[] = [];
      let probing = true;
      const probe = (async () => {
        while (probing) {
          const t = performance.now();
          await fetch(`${service.baseUrl}/v1/status`, { headers: { authorization: `Bearer ${keys.take()}` } }).then((r) => r.arrayBuffer());
          probes.push(performance.now() - t);
          await sleep(10);
        }
      })();
      loop.enable();
      const started = wallNow();
      // Every deadline passes at once: one transaction makes all of them final.
      skew += 10_000;
      await service.store.expireDue(clock.now());
      const finalTxn = wallNow() - started;
      await Promise.all(ids.map(arrived));
      const last = Math.max(...ids.map((id) => arrivals.get(id)![0]!));
      loop.disable();
      probing = false;
      await probe;
      await sleep(300); // anything sent twice would have arrived by now
      const duplicates = ids.reduce((n, id) => n + arrivals.get(id)!.length - 1, 0);
      const p = ascending(probes);
      rows.push([
        String(round),
        ms(finalTxn),
        num(BURST / ((last - started) / 1000)),
        ms(last - started),
        String(duplicates),
        ms(loop.percentile(99) / 1e6),
        ms(loop.max / 1e6),
        ms(percentile(p, 50)),
        ms(p.at(-1)!),
      ]);
    }
    printTable(rows);
  } finally {
    await service.stop();
    child.disconnect();
    removeDir(dataDir);
    cert.remove();
  }
}

if (process.argv[2] === '--receiver') receiver(process.argv[3]!, process.argv[4]!);
else runMain(main);
