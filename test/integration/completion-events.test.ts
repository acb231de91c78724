/** GET /v1/completions/{id}/events: a job's life as server-sent events, resumable, on the service with scripted agents. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';
import { openSse, type SseEvent } from '../support/sse-client.js';
import { until } from '../support/until.js';

const running: TestService[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.stop()));
});

async function start(options: Parameters<typeof startTestService>[0] = {}): Promise<TestService> {
  const t = await startTestService({ agents: { chatgpt: 1 }, ...options });
  running.push(t);
  return t;
}

const submit = async (t: TestService, prompt: string, key = t.key): Promise<string> => {
  const r = await t.api('POST', '/v1/completions', { body: { prompt, wait: false, callback_url: 'https://hooks.example/x' }, key });
  expect(r.status).toBe(202);
  return r.body.id as string;
};
const follow = (t: TestService, id: string, headers: Record<string, string> = {}, key = t.key) =>
  openSse(`${t.url}/v1/completions/${id}/events`, { authorization: `Bearer ${key}`, ...headers });
const texts = (events: SseEvent[]) => events.filter((e) => e.event === 'delta').map((e) => JSON.parse(e.data!).text as string);
const jobs = (events: SseEvent[]) => events.filter((e) => e.event === 'job').map((e) => JSON.parse(e.data!));
/**
 * Submits `prompt` while the agents are paused and follows it from the queue: the follower
 * hears every piece as it is published however slow the machine (one that joins late hears
 * the pieces so far as one).
 */
const followFromQueue = async (t: TestService, prompt: string) => {
  await t.driver.settings.setPaused(true);
  const id = await submit(t, prompt);
  const s = await follow(t, id);
  await until(() => t.driver.waiting() >= 2, 10_000, 'the follower listening'); // an event stream listens twice
  await t.driver.settings.setPaused(false);
  return { id, s };
};

describe('GET /v1/completions/{id}/events', () => {
  it("streams the job at each status and its answer's pieces, which joined are the response byte for byte, then ends", async () => {
    const t = await start();
    const { id, s } = await followFromQueue(t, 'Tell me [[ms=100]][[stream=3/40]] — with ünïcödé ✓');
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(s.headers.get('x-request-id')).toMatch(/^req_/);
    await s.done;
    const final = (await t.api('GET', `/v1/completions/${id}`)).body;
    expect(final.status).toBe('succeeded');
    // Three pieces from the agent, the rest from the service at the end.
    expect(texts(s.events)).toHaveLength(4);
    expect(texts(s.events).join('')).toBe(final.response);
    const shown = jobs(s.events);
    expect(shown.at(-1)).toEqual(final);
    expect(shown.map((j) => j.status)).toEqual(['queued', 'dispatched', 'succeeded']);
    // Every event has an id; the last says the whole answer was carried.
    expect(s.events.every((e) => e.id)).toBe(true);
    expect(s.events.at(-1)!.id).toBe(`${final.response.length}-succeeded-1`);
    await until(() => t.driver.waiting() === 0);
  });

  it('resumes from Last-Event-ID: the rest of the answer and the job once, nothing repeated', async () => {
    const t = await start();
    const { id, s: first } = await followFromQueue(t, 'Resume me [[stream=4/150]]');
    await until(() => texts(first.events).length === 1);
    first.close();
    const lastId = first.events.at(-1)!.id!;
    const second = await follow(t, id, { 'last-event-id': lastId });
    await second.done;
    const final = (await t.api('GET', `/v1/completions/${id}`)).body;
    expect(texts(first.events).join('') + texts(second.events).join('')).toBe(final.response);
    expect(jobs(second.events).map((j) => j.status)).toEqual(['succeeded']);
    // Resumed from the final event: nothing more to tell, the stream ends at once.
    const again = await follow(t, id, { 'last-event-id': second.events.at(-1)!.id! });
    await again.done;
    expect(again.events).toEqual([]);
  });

  it('a job already final shows itself once; a queued one gets keep-alives until it starts', async () => {
    const t = await start({ agents: {}, keepAliveMs: 40 });
    const id = await submit(t, 'waits');
    const s = await follow(t, id);
    await until(() => s.events.filter((e) => e.comment === 'keep-alive').length >= 2);
    expect(jobs(s.events).map((j) => j.status)).toEqual(['queued']);
    expect(jobs(s.events)[0].queue_position).toBe(1);
    await t.api('DELETE', `/v1/completions/${id}`);
    await s.done;
    expect(jobs(s.events).map((j) => j.status)).toEqual(['queued', 'cancelled']);
    const late = await follow(t, id);
    await late.done;
    expect(late.events.map((e) => [e.event, JSON.parse(e.data!).status])).toEqual([['job', 'cancelled']]);
  });

  it('a client that goes away leaves no subscription and no timer behind', async () => {
    const t = await start({ agents: {}, keepAliveMs: 20 });
    const id = await submit(t, 'waits');
    const streams = await Promise.all([1, 2, 3].map(() => follow(t, id)));
    await until(() => t.driver.waiting() === 6);
    for (const s of streams) s.close();
    await until(() => t.driver.waiting() === 0);
  });

  it('answers in the envelope before a stream begins: no key, no read scope, bad Last-Event-ID, unknown job, bad Host', async () => {
    const t = await start();
    const id = await submit(t, 'hello');
    const writeOnly = await t.createKey(['completions:write']);
    const cases: [Record<string, string>, number, string][] = [
      [{}, 401, 'UNAUTHORIZED'],
      [{ authorization: `Bearer ${writeOnly}` }, 403, 'FORBIDDEN'],
      [{ authorization: `Bearer ${t.key}`, 'last-event-id': 'nonsense' }, 400, 'INVALID_REQUEST'],
    ];
    for (const [headers, status, code] of cases) {
      const r = await fetch(`${t.url}/v1/completions/${id}/events`, { headers });
      expect(r.status).toBe(status);
      expect((await r.json()).error.code).toBe(code);
    }
    const unknown = await fetch(`${t.url}/v1/completions/job_nope/events`, { headers: { authorization: `Bearer ${t.key}` } });
    expect([unknown.status, (await unknown.json()).error.code]).toEqual([404, 'NOT_FOUND']);
    const { request } = await import('node:http');
    const badHost = await new Promise<number>((resolve) => {
      const port = new URL(t.url).port;
      request({ host: '127.0.0.1', port, path: `/v1/completions/${id}/events`, headers: { host: 'evil.example', authorization: `Bearer ${t.key}` } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      }).end();
    });
    expect(badHost).toBe(403);
    // The dashboard's token follows any job.
    const token = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
    const admin = await follow(t, id, {}, token);
    await admin.done;
    expect(jobs(admin.events).at(-1).status).toBe('succeeded');
  });

  it("(H) another account's job is as unknown as a made-up one", async () => {
    const t = await start({ profile: 'hosted' });
    const other = await t.createAccount('other');
    const id = await submit(t, 'mine');
    const r = await fetch(`${t.url}/v1/completions/${id}/events`, { headers: { authorization: `Bearer ${other.key}` } });
    expect(r.status).toBe(404);
    const own = await follow(t, id);
    await own.done;
    // The hosted rendering of the job, as GET gives it.
    expect(jobs(own.events).at(-1)).toEqual((await t.api('GET', `/v1/completions/${id}`)).body);
  });

  it('counts a job whose streamed pieces are not the start of its answer, and ends its streams with the job whole', async () => {
    const t = await start();
    const { id, s } = await followFromQueue(t, 'wrong [[stream-wrong]]');
    await s.done;
    const final = jobs(s.events).at(-1);
    expect(final.status).toBe('succeeded');
    expect(texts(s.events)).toEqual(['not the answer']);
    const token = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
    await until(async () => /chatbridge_stream_delta_mismatch_total 1/.test(await (await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text()));
    await until(() => t.service.log.recent().some((e) => e.message.includes(id) && e.message.includes('not the start of its answer')));
  });
});
