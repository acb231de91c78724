/**
 * chatbridge/client against the real service (scripted agents), through a proxy that
 * injects faults: 429 with Retry-After, 503s, a connection dropped mid-hold; the service's
 * own 503 for `wait: false` while every agent is busy; `enqueue`; and a hold that ends
 * with JOB_TIMEOUT on a live job, followed by id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChatBridgeClient, type ClientClock } from '../../main/client/index.js';
import type { Provider } from '../../main/core/providers.js';
import { startTestService, type TestService } from '../support/harness.js';
import { faultProxy, type Fault, type FaultProxy, type Seen } from '../support/fault-proxy.js';
import { ManualClock } from '../support/manual-clock.js';
import { failure } from '../support/scripted-http.js';
import { until } from '../support/until.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Real time with every wait a hundred times shorter, each one recorded. */
class FastClock implements ClientClock {
  readonly waits: number[] = [];
  now = () => Date.now();
  setTimer(fn: () => void, ms: number) {
    this.waits.push(ms);
    const t = setTimeout(fn, ms / 100);
    return { cancel: () => clearTimeout(t) };
  }
}

async function setUp(options: { agents?: Partial<Record<Provider, number>>; serviceClock?: ManualClock; fault?: (s: Seen, i: number) => Fault } = {}) {
  const ts: TestService = await startTestService({ agents: options.agents ?? { claude: 1 }, ...(options.serviceClock ? { clock: options.serviceClock } : {}) });
  cleanups.push(() => ts.stop());
  const proxy: FaultProxy = await faultProxy(ts.url, options.fault ?? (() => undefined));
  cleanups.push(() => proxy.close());
  const clock = new FastClock();
  const client = new ChatBridgeClient({ baseUrl: proxy.url, apiKey: ts.key, clock });
  return { ts, proxy, clock, client, jobs: async () => await ts.driver.recent(100) };
}

const posts = (proxy: FaultProxy) => proxy.seen.filter((s) => s.method === 'POST');

describe('chatbridge/client against the service, with faults', () => {
  it('429 with Retry-After, then two 503s: one answer, one job, the same Idempotency-Key on every try', async () => {
    const injected = [failure(429, 'RATE_LIMITED', undefined, { 'retry-after': '3' }), failure(503, 'NO_AGENT_AVAILABLE'), failure(503, 'NO_AGENT_AVAILABLE')];
    const { ts, proxy, clock, client, jobs } = await setUp({ fault: () => injected.shift() });
    const job = await client.submit({ prompt: 'through the faults', provider: 'claude' });
    expect(job).toMatchObject({ status: 'succeeded', response: `echo(${ts.agents[0]!.id}#1): through the faults` });
    expect(clock.waits[0]).toBe(3_000);
    // Then the back-off of retries 2 and 3: 4 s and 8 s steps, each jittered into its second half.
    expect(clock.waits[1]).toBeGreaterThanOrEqual(2_000);
    expect(clock.waits[1]).toBeLessThanOrEqual(4_000);
    expect(clock.waits[2]).toBeGreaterThanOrEqual(4_000);
    expect(clock.waits[2]).toBeLessThanOrEqual(8_000);
    expect(posts(proxy)).toHaveLength(4);
    expect(new Set(posts(proxy).map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(await jobs()).toHaveLength(1);
  });

  it('a connection dropped mid-hold: the retry under the same key waits for the same job, which runs once', async () => {
    let agentStarted: () => boolean = () => false;
    const { ts, proxy, client, jobs } = await setUp({ fault: (_, i) => (i === 0 ? { drop: () => until(agentStarted) } : undefined) });
    agentStarted = () => ts.agents[0]!.runs.length === 1;
    const job = await client.submit({ prompt: '[[ms=300]] slow', provider: 'claude' });
    expect(job.status).toBe('succeeded');
    expect(posts(proxy)).toHaveLength(2);
    expect(posts(proxy)[1]!.headers['idempotency-key']).toBe(posts(proxy)[0]!.headers['idempotency-key']);
    expect((await jobs()).map((j) => j.id)).toEqual([job.id]);
    expect(ts.agents[0]!.runs).toHaveLength(1);
  });

  it("the service's own 503 (wait: false, every agent busy) is retried until an agent frees", async () => {
    const { ts, client, clock, jobs } = await setUp();
    // The busy job never ends by itself: it is cancelled once the second was refused.
    const busy = await client.submit({ prompt: '[[hang]] first', wait: false });
    await until(() => ts.agents[0]!.runs.length === 1);
    const submitting = client.submit({ prompt: 'second', wait: false });
    await until(() => clock.waits.length > 0, 10_000, 'the second to be refused'); // at least once
    await client.cancel(busy.id);
    const second = await submitting;
    expect(second).toMatchObject({ status: 'queued' });
    expect(second.id).not.toBe(busy.id);
    expect(await jobs()).toHaveLength(2);
  });

  it('enqueue queues a job even while no agent is free, and wait follows it to its answer', async () => {
    const { ts, proxy, client, jobs } = await setUp();
    // The first job never ends by itself: it is cancelled once the second is followed, queued behind it.
    const first = await client.submit({ prompt: '[[hang]] first', wait: false });
    await until(() => ts.agents[0]!.runs.length === 1);
    const progress: string[] = [];
    const queued = await client.enqueue({ prompt: 'queued behind', provider: 'claude' });
    expect(queued).toMatchObject({ status: 'queued', queue_position: 1 });
    // Refused with wait: false (503), so held with wait: true until a wait: false repeat named the job.
    const waits = posts(proxy).map((s) => JSON.parse(s.body).wait);
    expect(waits.slice(0, 3)).toEqual([false, false, true]);
    expect(waits.at(-1)).toBe(false);
    const waiting = client.wait(queued.id, { onProgress: (j) => progress.push(j.status), progressEveryMs: 50 });
    await until(() => progress.length > 0, 10_000, 'the first progress');
    await client.cancel(first.id);
    const done = await waiting;
    expect(done).toMatchObject({ id: queued.id, status: 'succeeded' });
    expect(progress[0]).toBe('queued');
    expect(await jobs()).toHaveLength(2);
  });

  it('a hold that ends with JOB_TIMEOUT while the job is queued is followed by id, never resubmitted', async () => {
    const serviceClock = new ManualClock();
    const { ts, proxy, client, jobs } = await setUp({ agents: {}, serviceClock });
    const answer = client.submit({ prompt: 'waits for an account', provider: 'qwen' });
    // The hold's own wait, not the queued row: a job shows in the queue a flush of the log before its caller is answered.
    await until(() => ts.driver.waiting() === 1, 15_000, 'the hold to wait on the queued job');
    serviceClock.advance(600_000); // the longest hold ends; the job stays queued
    await until(() => proxy.seen.some((s) => s.method === 'GET'), 15_000, 'the client to follow the job');
    const id = (await jobs())[0]!.id;
    expect(proxy.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /v1/completions', `GET /v1/completions/${id}?wait=true`]);
    ts.driver.attach({ qwen: 1 }); // an account is added: the job runs
    await expect(answer).resolves.toMatchObject({ id, status: 'succeeded' });
    expect(posts(proxy)).toHaveLength(1);
    expect(await jobs()).toHaveLength(1);
  });
});
