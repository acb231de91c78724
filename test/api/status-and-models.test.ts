/**
 * The account's documents: GET /v1/status (every provider, the queue, the agents, this
 * device), GET /v1/models (service/auto first, then the providers with a logged-in agent) and
 * the OpenAPI 3.1 document, valid and built from the schemas that validate requests.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';

let t: TestService;
afterEach(async () => t?.stop());
const queued = { wait: false, callback_url: 'https://127.0.0.1:9/hook' };

describe('status, models and the OpenAPI document', () => {
  it('reports every provider, the queue and the agents', async () => {
    // Listening: the device's base_url is where it listens.
    t = await startTestService({ agents: { chatgpt: 2, perplexity: 1 } });
    await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'chatgpt' } });
    await t.api('POST', '/v1/completions', { body: { prompt: 'q', provider: 'claude', ...queued } });
    const s = (await t.api('GET', '/v1/status')).body;
    expect(Object.keys(s.providers).sort()).toEqual(['chatgpt', 'claude', 'deepseek', 'gemini', 'perplexity', 'qwen']);
    expect(s.providers.chatgpt).toEqual({ agents_idle: 2, agents_total: 2, rate_limit_per_hour: null, used_this_hour: 1, next_slot_at: null });
    expect(s.providers.qwen).toMatchObject({ agents_idle: 0, agents_total: 0, used_this_hour: 0 });
    expect(s.queue.depth).toBe(1);
    expect(s.queue.oldest_queued_at).toMatch(/Z$/);
    expect(s.agents).toEqual({ idle: 3, busy: 0, total: 3 });
    expect(s.devices[0]).toMatchObject({ base_url: t.url, online: true });
    expect(s.global).toEqual({ rate_limit_per_hour: null, used_this_hour: 1, next_slot_at: null });
  });

  it('lists service/auto first, then providers with a logged-in agent', async () => {
    t = await startTestService({ listen: false, agents: { gemini: 1, claude: 1 } });
    t.agents[1]!.setReadiness('needs_login');
    const m = (await t.api('GET', '/v1/models')).body;
    expect(m.object).toBe('list');
    expect(m.data.map((x: { id: string }) => x.id)).toEqual(['service/auto', 'service/gemini']);
    expect(m.data[0]).toMatchObject({ object: 'model', owned_by: 'chatbridge', created: expect.any(Number) });
  });

  it('serves a valid OpenAPI 3.1 document built from the validating schemas', async () => {
    t = await startTestService({ listen: false });
    const doc = (await t.api('GET', '/v1/openapi.json', { key: null })).body;
    const validation = await new Validator().validate(doc);
    expect(validation.errors ?? []).toEqual([]);
    expect(validation.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('ChatBridge — Prompt Completion Service');
    const post = doc.paths['/v1/completions'].post;
    const body = post.requestBody.content['application/json'].schema;
    expect(body.properties.prompt.maxLength).toBe(100_000);
    // Fields with a default may be left out; only the prompt must be sent.
    expect(body.required).toEqual(['prompt']);
    expect(body.properties.provider.type).toEqual(['string', 'null']);
    expect(post.parameters.map((p: { name: string }) => p.name.toLowerCase())).toContain('idempotency-key');
    expect(post.security).toEqual([{ bearer: [] }]);
    expect(post.responses.default.content['application/json'].schema.properties.error.required).toEqual(['code', 'message', 'request_id']);
    // The 503 of wait: false without callback_url is said where a reader looks, with the alternatives.
    expect(post.description).toMatch(/without `callback_url` answers 202 only when an agent is free right now, and 503/);
    expect(body.properties.wait.description).toMatch(/callback_url/);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.ErrorEnvelope.properties.error.type).toBe('object');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/v1/chat/completions',
      '/v1/completions',
      '/v1/completions/{id}',
      '/v1/completions/{id}/events',
      '/v1/models',
      '/v1/openapi.json',
      '/v1/status',
    ]);
    expect(Object.keys(doc.paths['/v1/completions/{id}']).sort()).toEqual(['delete', 'get']);
    expect(doc.paths['/v1/openapi.json'].get.security).toEqual([]);
    // The events stream: read scope, Last-Event-ID, a text/event-stream 200 and JSON errors.
    const events = doc.paths['/v1/completions/{id}/events'].get;
    expect(events.security).toEqual([{ bearer: [] }]);
    expect(events.parameters.map((p: { name: string }) => p.name.toLowerCase())).toEqual(expect.arrayContaining(['id', 'last-event-id']));
    expect(Object.keys(events.responses['200'].content)).toEqual(['text/event-stream']);
    expect(events.responses.default.content['application/json']).toBeDefined();
    for (const path of Object.values(doc.paths) as Record<string, { responses: Record<string, unknown> }>[]) {
      for (const op of Object.values(path)) expect(Object.keys(op.responses)).toContain('200');
    }
  });
});
