/**
 * A request held while its job waits keeps no file data (issue 32: a job's files must not sit
 * in the event loop while it waits): once the store has a job's files, neither the request's
 * body nor the submission holds them. Five `wait: true` requests of 20 MiB each wait on a
 * provider with no agent; the heap and buffers grow by well under their 100 MiB (they grew by
 * 230 MiB when the parsed body and the decoded files stayed with each held request, and a
 * chat file's media type, cut from its data URL, kept the whole URL).
 */
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';
import { until } from '../support/until.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const MiB = 1024 * 1024;

/** The heap and the buffers outside it, after collecting what can be. */
function heldBytes(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/**
 * Three native and two chat requests of a 20 MiB file each, written and let go of: only the
 * service may keep their bodies. A function of its own, so that none stays on the test's stack.
 */
function sendAll(url: URL): http.ClientRequest[] {
  const send = (path: string, body: unknown) => {
    const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path, headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' } });
    req.on('error', () => {});
    req.end(Buffer.from(JSON.stringify(body)));
    return req;
  };
  const file = (i: number) => Buffer.alloc(20 * MiB, i).toString('base64');
  const native = (i: number) => ({ prompt: `native ${i}`, provider: 'claude', attachments: [{ filename: 'a.bin', media_type: 'application/octet-stream', data: file(i) }] });
  const chat = (i: number) => ({
    model: 'service/claude',
    messages: [{ role: 'user', content: [{ type: 'text', text: `chat ${i}` }, { type: 'file', file: { filename: 'b.bin', file_data: `data:application/octet-stream;base64,${file(i)}` } }] }],
  });
  return [0, 1, 2].map((i) => send('/v1/completions', native(i))).concat([3, 4].map((i) => send('/v1/chat/completions', chat(i))));
}

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ agents: {} });
});
afterAll(() => t?.stop());

describe('files of waiting requests', () => {
  it('are not held by the requests once stored', async () => {
    const before = heldBytes();
    const held = sendAll(new URL(t.url));
    try {
      // Five holds listening, not five queued rows: a row shows one flush of the log before its
      // submission is answered and lets go of its files.
      await until(() => t.driver.waiting() === 5, 30_000, 'five held requests');
      const grown = heldBytes() - before;
      expect(grown, `${Math.round(grown / MiB)} MiB held`).toBeLessThan(50 * MiB);
    } finally {
      for (const req of held) req.destroy();
    }
  }, 60_000);
});
