/**
 * The official `openai` package, unchanged, against the service (api.md "POST
 * /v1/chat/completions", decisions.md "Status, models, chat completions"): answers come back
 * in OpenAI's shape with the job id, models are listed in OpenAI's list shape, and refusals
 * reach the client as its own error classes carrying the service's envelope.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';

describe('the official openai client', () => {
  let t: TestService;
  let client: OpenAI;
  let chatgptAgent: string;
  let claudeAgent: string;

  beforeAll(async () => {
    t = await startTestService({ agents: { chatgpt: 1, claude: 1 } });
    chatgptAgent = t.agents.find((a) => a.provider === 'chatgpt')!.id;
    claudeAgent = t.agents.find((a) => a.provider === 'claude')!.id;
    client = new OpenAI({ apiKey: t.key, baseURL: `${t.url}/v1`, maxRetries: 0, timeout: 20_000 });
  });

  afterAll(async () => {
    await t?.stop();
  });

  /** The same client with no retries and another key. */
  const clientWith = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${t.url}/v1`, maxRetries: 0, timeout: 20_000 });

  /** Runs `call`, which must fail, and returns what it threw. */
  async function failure(call: () => Promise<unknown>): Promise<unknown> {
    try {
      await call();
    } catch (error) {
      return error;
    }
    throw new Error('the call succeeded; it should have failed');
  }

  it('service/auto: the answer in choices[0].message.content, the job id as id, usage null', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { data: completion, response } = await client.chat.completions
      .create({ model: 'service/auto', messages: [{ role: 'user', content: 'Say hello' }] })
      .withResponse();

    expect(completion.id).toMatch(/^job_[0-9A-Za-z]+$/);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('service/auto');
    expect(completion.usage).toBeNull();
    expect(completion.created).toBeGreaterThanOrEqual(before - 1);
    expect(completion.created).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
    expect(completion.choices).toHaveLength(1);
    const [choice] = completion.choices;
    expect(choice!.index).toBe(0);
    expect(choice!.finish_reason).toBe('stop');
    expect(choice!.message.role).toBe('assistant');
    // A lone user message is sent as it is; the scripted agent echoes it.
    expect(choice!.message.content).toMatch(/^echo\(agt_[0-9A-Za-z]+#1\): Say hello$/);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);

    // The id is the job's: the native endpoint has it, succeeded, with the same answer.
    const job = await t.api('GET', `/v1/completions/${completion.id}`);
    expect(job.status).toBe(200);
    expect(job.body.status).toBe('succeeded');
    expect(job.body.response).toBe(choice!.message.content);
    expect([chatgptAgent, claudeAgent]).toContain(job.body.agent_id);
  });

  it('service/claude routes to the claude agent, service/chatgpt to the chatgpt agent', async () => {
    for (const [model, provider, agentId] of [
      ['service/claude', 'claude', claudeAgent],
      ['service/chatgpt', 'chatgpt', chatgptAgent],
      ['service/claude', 'claude', claudeAgent],
    ] as const) {
      const completion = await client.chat.completions.create({ model, messages: [{ role: 'user', content: `for ${provider}` }] });
      expect(completion.model).toBe(model);
      expect(completion.choices[0]!.message.content).toBe(`echo(${agentId}#1): for ${provider}`);
      const job = await t.api('GET', `/v1/completions/${completion.id}`);
      expect(job.body.provider).toBe(provider);
      expect(job.body.agent_id).toBe(agentId);
    }
  });

  it('flattens a system + user + assistant + user conversation into labelled blocks', async () => {
    const completion = await client.chat.completions.create({
      model: 'service/chatgpt',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'What is 2+2?' },
        { role: 'assistant', content: '4' },
        { role: 'user', content: 'And 3+3?' },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe(
      `echo(${chatgptAgent}#1): System: You are terse.\n\nUser: What is 2+2?\n\nAssistant: 4\n\nUser: And 3+3?`,
    );
  });

  it('accepts the options OpenAI clients send and this service ignores', async () => {
    const completion = await client.chat.completions.create({
      model: 'service/auto',
      messages: [{ role: 'user', content: 'with options' }],
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 50,
      user: 'someone',
      stream: false,
    });
    expect(completion.choices[0]!.message.content).toMatch(/: with options$/);
  });

  it('models.list(): service/auto first, then one model per provider with an agent', async () => {
    const page = await client.models.list();
    const ids = page.data.map((m) => m.id);
    expect(ids[0]).toBe('service/auto');
    expect(ids.slice(1).sort()).toEqual(['service/chatgpt', 'service/claude']);
    for (const model of page.data) {
      expect(model.object).toBe('model');
      expect(Number.isInteger(model.created)).toBe(true);
      expect(typeof model.owned_by).toBe('string');
    }
    // Iterating the page gives the same models.
    const iterated: string[] = [];
    for await (const model of client.models.list()) iterated.push(model.id);
    expect(iterated).toEqual(ids);
  });

  it('an unknown model raises BadRequestError carrying the service envelope, naming the valid ids and the one meant', async () => {
    const ids = '"service/auto", "service/chatgpt", "service/claude", "service/gemini", "service/deepseek", "service/qwen", "service/perplexity"';
    const meant: Record<string, string> = {
      'gpt-4o': `model must be one of: ${ids}.`,
      'service/unknown': `model must be one of: ${ids}.`,
      'service/AUTO': `model must be one of: ${ids}. Did you mean "service/auto"?`,
      claude: `model must be one of: ${ids}. Did you mean "service/claude"?`,
      'gemini-2.5-pro': `model must be one of: ${ids}. Did you mean "service/gemini"?`,
    };
    for (const [model, message] of Object.entries(meant)) {
      const error = await failure(() => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }));
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      const e = error as InstanceType<typeof OpenAI.BadRequestError>;
      expect(e.status).toBe(400);
      expect(e.code).toBe('INVALID_REQUEST');
      const envelope = e.error as { code: string; message: string; request_id: string; details?: { field?: string } };
      expect(envelope.code).toBe('INVALID_REQUEST');
      expect(envelope.details?.field).toBe('model');
      expect(envelope.message).toBe(message);
      expect(envelope.request_id).toMatch(/^req_/);
      expect(e.requestID).toBe(envelope.request_id);
    }
  });

  it('the legacy client.completions.create raises BadRequestError saying to use chat completions', async () => {
    const error = await failure(() => client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say this is a test', max_tokens: 7 }));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const e = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.code).toBe('INVALID_REQUEST');
    expect(e.message).toContain('Ask through chat completions instead: POST /v1/chat/completions');
    expect((e.error as { details?: { use?: string } }).details?.use).toBe('/v1/chat/completions');
  });

  it('stream: true raises BadRequestError with INVALID_REQUEST on stream', async () => {
    const error = await failure(() =>
      client.chat.completions.create({ model: 'service/auto', messages: [{ role: 'user', content: 'stream me' }], stream: true }),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const e = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.status).toBe(400);
    expect(e.code).toBe('INVALID_REQUEST');
    expect((e.error as { details?: { field?: string } }).details?.field).toBe('stream');
    expect(e.requestID).toBe((e.error as { request_id: string }).request_id);
  });

  it('other refusals arrive as the matching client errors, with the service codes', async () => {
    // Too many messages: 400.
    const many = await failure(() =>
      client.chat.completions.create({
        model: 'service/auto',
        messages: Array.from({ length: 257 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
      }),
    );
    expect(many).toBeInstanceOf(OpenAI.BadRequestError);
    expect((many as InstanceType<typeof OpenAI.APIError>).code).toBe('INVALID_REQUEST');

    // Flattened over 100 000 characters: 413.
    const long = await failure(() =>
      client.chat.completions.create({
        model: 'service/auto',
        messages: [
          { role: 'system', content: 's'.repeat(60_000) },
          { role: 'user', content: 'u'.repeat(60_000) },
        ],
      }),
    );
    expect(long).toBeInstanceOf(OpenAI.APIError);
    expect((long as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
    expect((long as InstanceType<typeof OpenAI.APIError>).code).toBe('PAYLOAD_TOO_LARGE');

    // A bad key: 401.
    const unauthorized = await failure(() => clientWith('cb_not-a-real-key').models.list());
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((unauthorized as InstanceType<typeof OpenAI.APIError>).code).toBe('UNAUTHORIZED');

    // A key without completions:write: 403.
    const readOnly = clientWith(await t.createKey(['completions:read']));
    const forbidden = await failure(() => readOnly.chat.completions.create({ model: 'service/auto', messages: [{ role: 'user', content: 'x' }] }));
    expect(forbidden).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((forbidden as InstanceType<typeof OpenAI.APIError>).code).toBe('FORBIDDEN');
    // ... which still lists models (completions:read).
    expect((await readOnly.models.list()).data[0]!.id).toBe('service/auto');
  });

  /** The jobs made from one prompt: what the SDK's own repeats cost. */
  const jobsOf = async (prompt: string) => (await t.driver.recent(500)).filter((j) => j.prompt === prompt);

  it("with the SDK's own retries on, a refused prompt is one job: final outcomes say x-should-retry: false", async () => {
    const retrying = new OpenAI({ apiKey: t.key, baseURL: `${t.url}/v1`, maxRetries: 2, timeout: 20_000 });
    const prompt = 'refuse me [[fail=rejected]]';
    const { error, headers } = await failure(() =>
      retrying.chat.completions.create({ model: 'service/chatgpt', messages: [{ role: 'user', content: prompt }] }),
    ).then((e) => ({ error: e as InstanceType<typeof OpenAI.APIError>, headers: (e as InstanceType<typeof OpenAI.APIError>).headers }));
    expect(error.status).toBe(502);
    expect(error.code).toBe('PROMPT_REJECTED');
    expect(headers?.get('x-should-retry')).toBe('false');
    expect(await jobsOf(prompt)).toHaveLength(1);
  });

  it("an SDK repeat after its own timeout waits for the first request's job instead of making another", async () => {
    // The first try gives up after 1 s; the job takes 1.2 s; the SDK repeats (x-stainless-retry-count: 1) and gets its answer.
    const impatient = new OpenAI({ apiKey: t.key, baseURL: `${t.url}/v1`, maxRetries: 2, timeout: 1_000 });
    const prompt = 'slow one [[ms=1200]]';
    const completion = await impatient.chat.completions.create({ model: 'service/claude', messages: [{ role: 'user', content: prompt }] });
    expect(completion.choices[0]!.message.content).toBe(`echo(${claudeAgent}#1): ${prompt}`);
    expect((await jobsOf(prompt)).map((j) => j.id)).toEqual([completion.id]);

    // A person sending the same request again (not a repeat: retry count 0) gets a new job.
    const again = await client.chat.completions.create({ model: 'service/claude', messages: [{ role: 'user', content: prompt }] });
    expect(again.id).not.toBe(completion.id);
    expect(await jobsOf(prompt)).toHaveLength(2);
  });
});
