/**
 * The service for bench/job-files: `serve` on a data dir with no agent, so every job stays
 * queued. Each SIGUSR2 submits one job of 50 MiB of files (20 + 20 + 10 MiB of random bytes)
 * through the completions port, as a request's decoded files reach it (the HTTP layer's
 * parsing is not part of this figure), and prints "stored N in MS ms, loop held MS ms" once
 * the store has it: the second figure is the longest the event loop was held meanwhile.
 * SIGWINCH runs a full garbage collection (with --expose-gc) and prints "collected".
 *   node --expose-gc dist/bench/files-server.js --data-dir DIR
 * Prints "listening on URL" like serve; stops on a signal as serve does.
 */
import { createHash, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { buildServer } from '../main/api/server.js';
import { stopOnSignals } from '../main/cli/stop-signals.js';
import type { NewAttachment } from '../main/core/attachments.js';
import { completionDefaults } from '../main/contract/schemas.js';
import { Service } from '../main/service/service.js';

const MiB = 1024 * 1024;
const SIZES = [20 * MiB, 20 * MiB, 10 * MiB];

function files(): NewAttachment[] {
  return SIZES.map((size, i) => {
    const data = randomBytes(size);
    return { filename: `part-${i + 1}.bin`, media_type: 'application/octet-stream', bytes: size, sha256: createHash('sha256').update(data).digest('hex'), data };
  });
}

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' } } });
const service = await Service.start({ dataDir: values['data-dir']!, http: buildServer, port: 0 });
let submitted = 0;
// The longest gap between two ticks of a 5 ms interval, less the 5 ms: how long the loop was held.
let lastTick = performance.now();
let held = 0;
setInterval(() => {
  const now = performance.now();
  held = Math.max(held, now - lastTick - 5);
  lastTick = now;
}, 5);
// One submission at a time, in the order asked.
let queue = Promise.resolve();
process.on('SIGUSR2', () => {
  queue = queue.then(async () => {
    const n = ++submitted;
    const attachments = files();
    // Making the files held the loop too: that is the caller's part, not counted.
    await new Promise((resolve) => setTimeout(resolve, 20));
    held = 0;
    const started = performance.now();
    await service.completions.submit({
      // A callback makes the job one to queue for later: with no agent, a job without one would be refused (503).
      body: { ...completionDefaults(), prompt: `files ${n}`, callback_url: 'https://hooks.invalid/bench-hook' },
      idempotencyKey: undefined,
      path: '/v1/completions',
      rawBody: {},
      apiKeyId: 'bench',
      accountId: null,
      attachments,
    });
    const took = performance.now() - started;
    // Let the interval tick once after the turn that wrote it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    process.stdout.write(`stored ${n} in ${took.toFixed(0)} ms, loop held ${held.toFixed(0)} ms\n`);
  });
});
process.on('SIGWINCH', () => {
  (globalThis as { gc?: () => void }).gc?.();
  process.stdout.write('collected\n');
});
stopOnSignals(service, 0, []);
process.stdout.write(`listening on ${service.baseUrl}\n`);
