/**
 * The client library's followers: `follow(id)` (the job's events, resumed from Last-Event-ID
 * where the stream is cut, long-polled where it cannot be had) and `stream()` for chat.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatBridgeClient, type JobEvent } from '../../main/client/index.js';
import { startTestService, type TestService } from '../support/harness.js';
import { until } from '../support/until.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function start(): Promise<TestService> {
  const t = await startTestService({ agents: { chatgpt: 1 } });
  closers.push(() => t.stop());
  return t;
}

/**
 * A proxy in front of the service; `events` decides what becomes of each request for an
 * event stream: passed on, cut after its first delta, or refused with a proxy's 502 page.
 */
async function proxy(t: TestService, events: (n: number) => 'pass' | 'cut' | 'refuse'): Promise<{ url: string; lastEventIds: (string | undefined)[] }> {
  const lastEventIds: (string | undefined)[] = [];
  const server: Server = createServer((req, res) => {
    const upstream = new URL(t.url);
    const isEvents = req.url!.endsWith('/events');
    const fate = isEvents ? events(lastEventIds.push(req.headers['last-event-id'] as string | undefined)) : 'pass';
    if (fate === 'refuse') return res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>');
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.on('data', (chunk: Buffer) => {
        res.write(chunk);
        // The delta reaches the client; then the connection drops, mid-answer.
        if (fate === 'cut' && chunk.toString().includes('event: delta')) {
          setTimeout(() => {
            answer.destroy();
            res.destroy();
          }, 20);
        }
      });
      answer.on('end', () => res.end());
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, lastEventIds };
}

const collect = async (events: AsyncIterable<JobEvent>) => {
  const got: JobEvent[] = [];
  for await (const event of events) got.push(event);
  return got;
};
const joined = (events: JobEvent[]) => events.flatMap((e) => (e.type === 'delta' ? [e.text] : [])).join('');
const lastJob = (events: JobEvent[]) => (events.at(-1) as Extract<JobEvent, { type: 'job' }>).job;

describe('ChatBridgeClient.follow', () => {
  it("yields the job's statuses and its answer's pieces, which joined are the response", async () => {
    const t = await start();
    const client = new ChatBridgeClient({ baseUrl: t.url, apiKey: t.key });
    // Paused until the follower listens, so that each piece comes as it is published however
    // slow the machine (a follower that joins late gets the pieces so far as one).
    await t.driver.settings.setPaused(true);
    const { id } = await client.submit({ prompt: 'Follow me [[stream=3/30]]', wait: false, callback_url: 'https://hooks.example/x' });
    const following = collect(client.follow(id));
    await until(() => t.driver.waiting() >= 2, 10_000, 'the follower listening');
    await t.driver.settings.setPaused(false);
    const events = await following;
    expect((events[0] as Extract<JobEvent, { type: 'job' }>).job.status).toBe('queued');
    expect(lastJob(events).status).toBe('succeeded');
    expect(joined(events)).toBe(lastJob(events).response);
    expect(events.filter((e) => e.type === 'delta')).toHaveLength(4);
  });

  it('resumes a cut stream from Last-Event-ID: nothing repeated, nothing missed', async () => {
    const t = await start();
    const p = await proxy(t, (n) => (n === 1 ? 'cut' : 'pass'));
    const client = new ChatBridgeClient({ baseUrl: p.url, apiKey: t.key });
    const { id } = await client.submit({ prompt: 'Cut me [[stream=4/100]]', wait: false, callback_url: 'https://hooks.example/x' });
    const events = await collect(client.follow(id));
    expect(joined(events)).toBe(lastJob(events).response);
    expect(p.lastEventIds).toHaveLength(2);
    expect(p.lastEventIds[0]).toBeUndefined();
    expect(p.lastEventIds[1]).toMatch(/^\d+-dispatched-1$/);
  });

  it('long-polls where no stream can be had, and still ends with the rest of the answer and the job', async () => {
    const t = await start();
    const p = await proxy(t, () => 'refuse');
    const client = new ChatBridgeClient({ baseUrl: p.url, apiKey: t.key });
    const { id } = await client.submit({ prompt: 'Poll me [[ms=200]]', wait: false, callback_url: 'https://hooks.example/x' });
    const events = await collect(client.follow(id));
    expect(events.map((e) => e.type)).toEqual(['delta', 'job']);
    expect(joined(events)).toBe(lastJob(events).response);
    expect(lastJob(events).status).toBe('succeeded');
  });

  it('throws a job that is not the caller’s as NOT_FOUND', async () => {
    const t = await start();
    const client = new ChatBridgeClient({ baseUrl: t.url, apiKey: t.key });
    await expect(collect(client.follow('job_nope'))).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});

describe('ChatBridgeClient.stream', () => {
  it('yields the chat chunks once streaming is on; refused (400) while off', async () => {
    const t = await start();
    const client = new ChatBridgeClient({ baseUrl: t.url, apiKey: t.key });
    const request = { model: 'service/chatgpt', messages: [{ role: 'user' as const, content: 'Chunks [[stream=2/20]]' }] };
    await expect(collect(client.stream(request) as AsyncIterable<never>)).rejects.toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    await t.driver.settings.setStreaming(true);
    const chunks = [];
    for await (const chunk of client.stream(request)) chunks.push(chunk);
    const job = await client.get(chunks[0]!.id);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(job.response);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
  });
});
