/**
 * The client rules of the contract (api.md "Errors" rules 2–3) as chatbridge/client keeps
 * them, against a scripted HTTP server, on an injected clock: what is retried and what is
 * not, the back-off and its jitter, Retry-After, one Idempotency-Key per submission, and
 * a JOB_TIMEOUT on a live job followed by reading the job, never by submitting again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChatBridgeClient, ChatBridgeError, type ClientClock, type Job } from '../../main/client/index.js';
import { ManualClock } from '../support/manual-clock.js';
import { failure, scriptedHttp, type Answer, type Reply, type ScriptedHttp } from '../support/scripted-http.js';
import { until } from '../support/until.js';

const servers: ScriptedHttp[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/**
 * Virtual time that passes at once: every timer asked for is recorded and fires on the
 * next turn of the event loop with the clock moved on by its delay. Enough where the client
 * runs one timer at a time (its back-off); `ManualClock` where several run together.
 */
class InstantClock implements ClientClock {
  readonly delays: number[] = [];
  private current = Date.UTC(2026, 10, 21, 10, 0, 0);
  now(): number {
    return this.current;
  }
  setTimer(fn: () => void, ms: number) {
    this.delays.push(ms);
    let cancelled = false;
    setImmediate(() => {
      if (cancelled) return;
      this.current += ms;
      fn();
    });
    return { cancel: () => void (cancelled = true) };
  }
}

function job(id: string, status: Job['status'], extra: Partial<Job> = {}): Job {
  return {
    id,
    status,
    response: status === 'succeeded' ? `answer of ${id}` : null,
    provider: 'claude',
    agent_id: 'agt_1',
    agent_name: 'claude-1',
    variant: null,
    model_used: null,
    conversation_ref: status === 'succeeded' ? 'cv_1' : null,
    attempts: 1,
    queue_ms: 5,
    run_ms: 10,
    created_at: '2026-11-21T10:00:00Z',
    error: null,
    metadata: {},
    attachments: [],
    ...extra,
  };
}

async function setUp(answer: Answer, options: { random?: () => number; maxRetries?: number; clock?: ClientClock } = {}) {
  const server = await scriptedHttp(answer);
  servers.push(server);
  const clock = options.clock ?? new InstantClock();
  const retries: [string, number][] = [];
  const client = new ChatBridgeClient({
    baseUrl: `${server.url}/v1/`,
    apiKey: 'cb_test',
    clock,
    random: options.random ?? (() => 1),
    maxRetries: options.maxRetries ?? 8,
    onRetry: (error, waitMs) => retries.push([error.code, waitMs]),
  });
  return { server, client, clock, retries };
}

/** Answers from a list, one per request; the last one repeats. */
const sequence =
  (...replies: (Reply | 'drop')[]): Answer =>
  (_, i) =>
    replies[Math.min(i, replies.length - 1)]!;

const noAgent = failure(503, 'NO_AGENT_AVAILABLE', { provider: 'claude' });
const accepted: Reply = { status: 202, body: { id: 'job_1', status: 'queued', created_at: '2026-11-21T10:00:00Z' } };

describe('what the client retries', () => {
  it('backs off exponentially from 2 s, doubling, capped at 60 s, with the same generated Idempotency-Key on every try', async () => {
    const { server, client, clock, retries } = await setUp(sequence(noAgent, noAgent, noAgent, noAgent, noAgent, noAgent, noAgent, accepted));
    const answer = await client.submit({ prompt: 'hi', wait: false });
    expect(answer).toEqual(accepted.body);
    expect((clock as InstantClock).delays).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    expect(retries.map(([code]) => code)).toEqual(Array(7).fill('NO_AGENT_AVAILABLE'));

    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(8);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.requests.every((r) => r.body.prompt === 'hi' && r.headers.authorization === 'Bearer cb_test')).toBe(true);

    // A second submission gets a key of its own; a key the caller gives is used as it is.
    await client.submit({ prompt: 'again', wait: false });
    await client.submit({ prompt: 'mine', wait: false }, { idempotencyKey: 'order-42' });
    expect(server.requests[8]!.headers['idempotency-key']).not.toBe(keys[0]);
    expect(server.requests[9]!.headers['idempotency-key']).toBe('order-42');
  });

  it('jitters each step between half and all of it', async () => {
    const draws = [0, 0.5, 0.25];
    const { clock } = await setUp(sequence(noAgent, noAgent, noAgent, accepted), { random: () => draws.shift()! }).then(async (s) => {
      await s.client.submit({ prompt: 'hi', wait: false });
      return s;
    });
    expect((clock as InstantClock).delays).toEqual([1_000, 3_000, 5_000]);
  });

  it('waits exactly Retry-After on 429 RATE_LIMITED, keeping the caller’s Idempotency-Key', async () => {
    const limited = failure(429, 'RATE_LIMITED', undefined, { 'retry-after': '7' });
    const { server, client, clock, retries } = await setUp(sequence(limited, limited, accepted));
    await client.submit({ prompt: 'hi', wait: false }, { idempotencyKey: 'k-1' });
    expect((clock as InstantClock).delays).toEqual([7_000, 7_000]);
    expect(retries).toEqual([['RATE_LIMITED', 7_000], ['RATE_LIMITED', 7_000]]);
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['k-1', 'k-1', 'k-1']);
  });

  it.each([
    ['INTERNAL_ERROR', failure(500, 'INTERNAL_ERROR')],
    ['NO_DEVICE_ONLINE', failure(503, 'NO_DEVICE_ONLINE')],
    ['PROVIDER_RATE_LIMITED', failure(503, 'PROVIDER_RATE_LIMITED')],
    ['a dropped connection', 'drop' as const],
    ['a 502 that is not ChatBridge’s (a proxy)', { status: 502, body: '<html>Bad gateway</html>' }],
  ])('retries %s', async (_, fault) => {
    const { server, client } = await setUp(sequence(fault, accepted));
    await expect(client.submit({ prompt: 'hi', wait: false })).resolves.toEqual(accepted.body);
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    [400, 'INVALID_REQUEST', { field: 'prompt' }],
    [401, 'UNAUTHORIZED', undefined],
    [403, 'FORBIDDEN', undefined],
    [404, 'NOT_FOUND', undefined],
    [409, 'CONFLICT', undefined],
    [413, 'PAYLOAD_TOO_LARGE', undefined],
    [499, 'JOB_CANCELLED', { job_id: 'job_1', status: 'cancelled' }],
    [502, 'PROMPT_REJECTED', { job_id: 'job_1', attempts: [] }],
    [502, 'SOMETHING_NEW', undefined],
    [504, 'JOB_TIMEOUT', { job_id: 'job_1', status: 'expired' }],
  ])('does not retry %i %s, and reports it typed', async (status, code, details) => {
    const { server, client, clock } = await setUp(sequence(failure(status, code, details), accepted));
    const error = await client.submit({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChatBridgeError);
    expect(error).toMatchObject({ code, status, message: `scripted ${code}`, details: details ?? {}, requestId: 'req_scripted' });
    expect(server.requests).toHaveLength(1);
    expect((clock as InstantClock).delays).toEqual([]);
  });

  it('gives up after maxRetries with the last error', async () => {
    const { server, client } = await setUp(sequence(noAgent), { maxRetries: 3 });
    await expect(client.submit({ prompt: 'hi', wait: false })).rejects.toMatchObject({ code: 'NO_AGENT_AVAILABLE', status: 503 });
    expect(server.requests).toHaveLength(4);
  });

  it('a network failure is NETWORK_ERROR with status 0, retried and then reported', async () => {
    const { client } = await setUp(sequence('drop'), { maxRetries: 2 });
    const error = await client.status().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', status: 0, requestId: null });
  });

  it('an aborted signal ends a back-off at once', async () => {
    const clock = new ManualClock();
    const { client } = await setUp(sequence(noAgent), { clock });
    const controller = new AbortController();
    const submitted = client.submit({ prompt: 'hi', wait: false }, { signal: controller.signal }).catch((e: unknown) => e);
    await until(() => clock.pendingTimers() === 1, 15_000, 'the back-off');
    controller.abort(new Error('stop'));
    expect(await submitted).toMatchObject({ message: 'stop' });
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('JOB_TIMEOUT on a live job', () => {
  const liveTimeout = (details: Record<string, unknown>) => failure(504, 'JOB_TIMEOUT', details);

  it('follows the job by the id in details: long polls, never submits again', async () => {
    const { server, client } = await setUp(
      sequence(
        liveTimeout({ job_id: 'job_7', status: 'dispatched' }),
        { status: 200, body: job('job_7', 'dispatched') }, // one hold ended with the job still running
        { status: 200, body: job('job_7', 'succeeded') },
      ),
    );
    const done = await client.submit({ prompt: 'long one' });
    expect(done).toMatchObject({ id: 'job_7', status: 'succeeded', response: 'answer of job_7' });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /v1/completions',
      'GET /v1/completions/job_7?wait=true',
      'GET /v1/completions/job_7?wait=true',
    ]);
  });

  it('without an id in details, asks for the job with a wait: false repeat of the same key, then follows it', async () => {
    const { server, client } = await setUp(
      sequence(liveTimeout({ status: 'queued' }), { status: 200, body: job('job_8', 'queued') }, { status: 200, body: job('job_8', 'succeeded') }),
    );
    await expect(client.submit({ prompt: 'p', provider: 'claude' })).resolves.toMatchObject({ id: 'job_8', status: 'succeeded' });
    const [first, repeat, poll] = server.requests;
    expect(repeat!.method).toBe('POST');
    expect(repeat!.body).toEqual({ prompt: 'p', provider: 'claude', wait: false });
    expect(repeat!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(poll!.url).toBe('/v1/completions/job_8?wait=true');
    expect(server.requests).toHaveLength(3);
  });

  it('ends as the job ends: a failed job rejects with its own code, a cancelled one with JOB_CANCELLED', async () => {
    const failed = job('job_9', 'failed', { error: { code: 'PROMPT_REJECTED', message: 'The provider refused the prompt.' } });
    const one = await setUp(sequence(liveTimeout({ job_id: 'job_9', status: 'queued' }), { status: 200, body: failed }));
    await expect(one.client.submit({ prompt: 'x' })).rejects.toMatchObject({
      code: 'PROMPT_REJECTED',
      status: 502,
      message: 'The provider refused the prompt.',
      details: { job_id: 'job_9' },
    });
    const two = await setUp(sequence(liveTimeout({ job_id: 'job_9', status: 'queued' }), { status: 200, body: job('job_9', 'cancelled') }));
    await expect(two.client.submit({ prompt: 'x' })).rejects.toMatchObject({ code: 'JOB_CANCELLED', status: 499 });
  });

  it('chat completions: follows the job by id and answers in the chat.completion shape', async () => {
    const { server, client } = await setUp(
      sequence(liveTimeout({ job_id: 'job_5', status: 'dispatched' }), { status: 200, body: job('job_5', 'succeeded') }),
    );
    const completion = await client.chat({ model: 'service/claude', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion).toEqual({
      id: 'job_5',
      object: 'chat.completion',
      created: Date.UTC(2026, 10, 21, 10, 0, 0) / 1000,
      model: 'service/claude',
      choices: [{ index: 0, message: { role: 'assistant', content: 'answer of job_5' }, finish_reason: 'stop' }],
      usage: null,
    });
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});

describe('wait', () => {
  it('stops at maxWaitMs with the job as it stands, and reports progress while it waits', async () => {
    const clock = new ManualClock();
    let holds = 0;
    const { server, client } = await setUp(
      (r) => {
        if (r.url.endsWith('?wait=true')) {
          holds++;
          return new Promise<'drop'>(() => {}); // a hold that outlasts the bound
        }
        return { status: 200, body: job('job_3', 'queued', { queue_position: server.requests.length > 2 ? 1 : 2 }) };
      },
      { clock },
    );
    const seen: (number | undefined)[] = [];
    const waited = client.wait('job_3', { maxWaitMs: 300_000, onProgress: (j) => seen.push(j.queue_position), progressEveryMs: 2_000 });
    await until(() => holds === 1 && seen.length === 1, 15_000, 'the hold and the first look');
    clock.advance(2_000);
    await until(() => seen.length === 2, 15_000, 'the second look');
    clock.advance(298_000);
    const job3 = await waited;
    expect(job3).toMatchObject({ id: 'job_3', status: 'queued' });
    expect(seen).toEqual([2, 1]);
  });
});
