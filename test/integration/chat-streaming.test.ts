/**
 * POST /v1/chat/completions with `stream: true` (decisions.md, "Following a job, and
 * streaming"): refused until the operator turns streaming on, then OpenAI's
 * chat.completion.chunk stream, read by the official `openai` client unchanged.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';
import { openSse } from '../support/sse-client.js';
import { until } from '../support/until.js';

const running: TestService[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.stop()));
});

async function start(options: Parameters<typeof startTestService>[0] = {}, streaming = true): Promise<{ t: TestService; client: OpenAI }> {
  const t = await startTestService({ agents: { chatgpt: 1 }, ...options });
  running.push(t);
  if (streaming) await t.driver.settings.setStreaming(true);
  return { t, client: new OpenAI({ apiKey: t.key, baseURL: `${t.url}/v1`, maxRetries: 0, timeout: 20_000 }) };
}

const chat = (t: TestService, body: Record<string, unknown>) =>
  openSse(`${t.url}/v1/chat/completions`, { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' }, { method: 'POST', body: JSON.stringify(body) });

describe('chat completions with stream: true', () => {
  it('is refused (400 INVALID_REQUEST on stream) while streaming is off, the default', async () => {
    const { t, client } = await start({}, false);
    expect(t.driver.settings.get().streaming).toBe(false);
    const error = await client.chat.completions.create({ model: 'service/auto', messages: [{ role: 'user', content: 'hi' }], stream: true }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'stream' } });
  });

  it('streams to the openai client once on: the content pieces joined are the answer, each chunk with the job id', async () => {
    const { t, client } = await start();
    const stream = await client.chat.completions.create({
      model: 'service/chatgpt',
      messages: [{ role: 'user', content: 'Stream it [[stream=3/30]] ✓' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const id = chunks[0]!.id;
    const job = (await t.api('GET', `/v1/completions/${id}`)).body;
    expect(job.status).toBe('succeeded');
    expect(chunks.every((c) => c.id === id && c.object === 'chat.completion.chunk' && c.model === 'service/chatgpt')).toBe(true);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    const content = chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? '')).join('');
    expect(content).toBe(job.response);
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(4);
    expect(chunks.at(-2)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: null });
  });

  it('on the wire: keep-alives only while the job waits, then role, content, stop and [DONE]', async () => {
    const { t } = await start({ agents: {}, keepAliveMs: 30 });
    const s = await chat(t, { model: 'service/auto', messages: [{ role: 'user', content: 'wait for me' }], stream: true });
    expect(s.status).toBe(200);
    await until(() => s.events.filter((e) => e.comment === 'keep-alive').length >= 2);
    expect(s.events.every((e) => e.comment === 'keep-alive')).toBe(true);
    t.driver.attach({ chatgpt: 1 });
    await s.done;
    const data = s.events.filter((e) => e.data !== undefined).map((e) => e.data!);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks.map((c) => c.choices[0].finish_reason)).toEqual([null, null, 'stop']);
    expect(chunks[1].choices[0].delta.content).toMatch(/^echo\(.*wait for me$/);
  });

  it('a job that fails after the stream began ends it with an error chunk in the envelope, which the client throws', async () => {
    const { client } = await start();
    const stream = await client.chat.completions.create({ model: 'service/chatgpt', messages: [{ role: 'user', content: 'no [[fail=rejected]]' }], stream: true });
    const error = await (async () => {
      for await (const _ of stream) void _;
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ code: 'PROMPT_REJECTED', request_id: expect.stringMatching(/^req_/) });
  });

  it('pieces that turn out not to be the answer end the stream in an error chunk, never a stop the client would keep', async () => {
    const { client } = await start();
    const stream = await client.chat.completions.create({ model: 'service/chatgpt', messages: [{ role: 'user', content: 'wrong [[stream-wrong]][[ms=50]]' }], stream: true });
    let content = '';
    const error = await (async () => {
      for await (const c of stream) content += c.choices[0]?.delta.content ?? '';
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(content).toBe('not the answer');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ code: 'JOB_FAILED', message: expect.stringMatching(/GET \/v1\/completions\/job_/) });
  });

  it('errors before the stream begins are JSON with their status', async () => {
    const { t } = await start();
    const bad = await chat(t, { model: 'service/nope', messages: [{ role: 'user', content: 'x' }], stream: true });
    expect(bad.status).toBe(400);
    expect(JSON.parse(await bad.text()).error.code).toBe('INVALID_REQUEST');
  });

  it('a caller who closes the stream before the answer cancels the job within 2 s', async () => {
    const { t } = await start();
    const s = await chat(t, { model: 'service/chatgpt', messages: [{ role: 'user', content: 'slow [[ms=5000]]' }], stream: true });
    await until(() => s.events.some((e) => e.data?.includes('"role":"assistant"')));
    const id = JSON.parse(s.events.find((e) => e.data)!.data!).id as string;
    s.close();
    await until(async () => (await t.api('GET', `/v1/completions/${id}`)).body.status === 'cancelled', 2_000, 'the job cancelled within 2 s');
    await until(() => t.agents[0]!.runs[0]!.ended !== undefined);
    expect(t.agents[0]!.runs[0]!.ended).toBe('cancelled');
    await until(() => t.driver.waiting() === 0);
  });
});
