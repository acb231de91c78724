/**
 * Event streams and clients that stop reading (issue 33, "Limits"): writes never wait for a
 * client, so a reader that stops delays no other follower of its job nor of another job, and
 * it is cut once over a MiB waits for it in the process, or once its socket drained nothing
 * for four keep-alive periods (a chat stream cut so cancels its job, as a hang-up does). The
 * reader here is a raw socket that never reads; an agent floods the answer in 64 KiB pieces,
 * as the kernel holds some MB on loopback before a write backs up.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent, AgentResult, AgentTask } from '../../main/core/agent.js';
import { startTestService, type TestService } from '../support/harness.js';
import { openSse, type SseEvent } from '../support/sse-client.js';
import { until } from '../support/until.js';

const PIECE = 'x'.repeat(64 * 1024);

/** Tells `pieces` pieces of PIECE, each once `next` lets it, then answers them joined once `release` is called. */
class FloodAgent implements Agent {
  readonly provider = 'chatgpt' as const;
  release!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));
  constructor(
    readonly id: string,
    private readonly pieces: number,
    /** Resolves when the next piece may go, given how many went. */
    private readonly next: (told: number) => Promise<unknown>,
  ) {}
  readiness() {
    return 'idle' as const;
  }
  onChange(): void {}
  async run(task: AgentTask): Promise<AgentResult> {
    await task.onSent?.({ conversation: 'script://flood/1', turnsBefore: 0 });
    for (let i = 0; i < this.pieces; i++) {
      task.onDelta?.(PIECE);
      await this.next(i + 1);
    }
    await this.released;
    return { text: PIECE.repeat(this.pieces), conversation: 'script://flood/1', modelUsed: null };
  }
  collect(): Promise<AgentResult> {
    return Promise.reject(new Error('not collected'));
  }
  async close(): Promise<void> {}
}

const running: TestService[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(running.splice(0).map((t) => t.stop()));
});

const every = (ms: number) => () => new Promise((resolve) => setTimeout(resolve, ms));

async function start(keepAliveMs: number, pieces: number, next: (told: number) => Promise<unknown>) {
  const t = await startTestService({ agents: { claude: 1 }, keepAliveMs });
  running.push(t);
  const flood = new FloodAgent(t.service.pool.create('chatgpt', 'flood').id, pieces, next);
  t.service.pool.attach(flood);
  return { t, flood };
}

const submit = async (t: TestService, prompt: string, provider: string): Promise<string> =>
  (await t.api('POST', '/v1/completions', { body: { prompt, provider, wait: false, callback_url: 'https://hooks.example/x' } })).body.id as string;
const follow = (t: TestService, id: string) => openSse(`${t.url}/v1/completions/${id}/events`, { authorization: `Bearer ${t.key}` });
const joined = (events: SseEvent[]) => events.filter((e) => e.event === 'delta').map((e) => JSON.parse(e.data!).text as string).join('');

/** Asks for the job's events (or, given a body, a streamed chat completion) on a socket that then reads nothing; `rest()` reads what came until the server closed it. */
function stoppedReader(t: TestService, id: string, chat?: object) {
  const { hostname, port } = new URL(t.url);
  const socket = net.connect(Number(port), hostname);
  sockets.push(socket);
  const head = `Host: ${hostname}:${port}\r\nAuthorization: Bearer ${t.key}\r\n`;
  const body = JSON.stringify(chat);
  socket.write(
    chat
      ? `POST /v1/chat/completions HTTP/1.1\r\n${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
      : `GET /v1/completions/${id}/events HTTP/1.1\r\n${head}\r\n`,
  );
  socket.pause();
  return {
    rest: () =>
      new Promise<string>((resolve) => {
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.resume();
      }),
  };
}

describe('event streams and readers that stop', () => {
  it('a reader that stops delays no one: the other follower of its job, and of another job, get every piece while it is stuck; over a MiB behind, it is cut', async () => {
    // Keep-alives a minute apart: only the buffer can cut the stuck reader in this test. Each
    // piece goes once the reading follower has the last: it is never behind (on a loaded
    // machine a flood on a clock outran it, in the same process as the service, and it was cut
    // too), while everything piles up for the stuck one. Were a write to wait for the stuck
    // reader, the reading one would stop getting pieces once the kernel's buffer was full.
    // Counted as events come (joining 6.4 MiB at every look would cost more than the stream).
    let reader: Awaited<ReturnType<typeof follow>> | undefined;
    let seen = 0;
    let chars = 0;
    const count = () => {
      const events = reader?.events ?? [];
      for (; seen < events.length; seen++) if (events[seen]!.event === 'delta') chars += (JSON.parse(events[seen]!.data!) as { text: string }).text.length;
      return chars;
    };
    const got = (pieces: number) =>
      until(() => count() >= PIECE.length * pieces, 20_000, `piece ${pieces} at the reader`).catch((e: Error) => {
        throw new Error(`${e.message}: ${chars} of ${PIECE.length * 100} characters in ${reader?.events.length} events, ${t.service.events.size()} listeners`);
      });
    const { t, flood } = await start(60_000, 100, got);
    const id = await submit(t, 'flood', 'chatgpt');
    const stuck = stoppedReader(t, id);
    reader = await follow(t, id);
    // Long enough that its follower, which asks after it began, sees it run (a job already final shows only its end).
    const other = await submit(t, 'Other [[ms=4000]][[stream=3/50]]', 'claude');
    const otherReader = await follow(t, other);
    // All 6.4 MiB reach the reading follower before the agent answers: nobody waits on the stuck one.
    await got(100);
    await otherReader.done;
    expect(joined(otherReader.events)).toBe((await t.api('GET', `/v1/completions/${other}`)).body.response);
    // The stuck reader is cut: only the reader's two listeners are left.
    await until(() => t.service.events.size() === 2, 10_000, 'the stuck reader cut');
    flood.release();
    await reader.done;
    const final = (await t.api('GET', `/v1/completions/${id}`)).body;
    expect(final.status).toBe('succeeded');
    expect(joined(reader.events)).toBe(final.response);
    // What the stuck socket got ends before the job did.
    const cutOff = await stuck.rest();
    expect(cutOff.startsWith('HTTP/1.1 200')).toBe(true);
    expect(cutOff).not.toContain('"succeeded"');
  }, 60_000);

  it('a reader whose socket drains nothing for four keep-alive periods is cut, with far less than a MiB waiting for it', async () => {
    // 64 KiB every 20 ms: once the kernel is full, the stall (4 × 50 ms) comes before the MiB.
    const { t, flood } = await start(50, 400, every(20));
    const id = await submit(t, 'flood slowly', 'chatgpt');
    stoppedReader(t, id);
    await until(() => t.service.events.size() === 2, 10_000, 'a follower');
    await until(() => t.service.events.size() === 0, 20_000, 'the stalled reader cut');
    // The job goes on: its answer is not the stream's to end.
    expect((await t.api('GET', `/v1/completions/${id}`)).body.status).toBe('dispatched');
    flood.release();
  }, 60_000);

  it('a chat stream whose reader stopped is cut as one that hung up: its job is cancelled', async () => {
    const { t } = await start(50, 400, every(20));
    await t.service.settings.setStreaming(true);
    stoppedReader(t, '', { model: 'service/chatgpt', messages: [{ role: 'user', content: 'flood a chat' }], stream: true });
    const job = await until(async () => (await t.driver.recent(10)).find((j) => j.prompt === 'flood a chat'), 10_000, 'the job');
    await until(async () => (await t.driver.job(job.id))?.status === 'cancelled', 20_000, 'the job cancelled');
  }, 60_000);
});
