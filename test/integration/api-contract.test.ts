/**
 * The rules of api.md and decisions.md that are about the HTTP surface: authentication,
 * scopes, request limits, idempotency, capacity answers, envelopes and documents.
 */
import http from 'node:http';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { withDataDirDb } from '../support/data-dir-db.js';
import { jobIdWhere } from '../support/store.js';
import { startTestService, type TestService } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { until } from '../support/until.js';

let t: TestService;
afterEach(async () => t?.stop());
const queued = { wait: false, callback_url: 'https://127.0.0.1:9/hook' };

describe('authentication and scopes', () => {
  it('answers 401 for a missing, malformed, unknown, revoked or expired key', async () => {
    const clock = new ManualClock();
    t = await startTestService({ clock });
    const expiring = await t.createKey(['completions:read'], clock.now() + 1_000);
    const revoked = await t.createKey(['completions:read']);
    const revokedId = (t.service.keys.authenticate(revoked) as { ok: true; key: { id: string } }).key.id;
    await t.service.keys.revoke(revokedId);
    clock.advance(1_000);
    for (const key of [null, 'nope', `cb_${'x'.repeat(40)}`, revoked, expiring]) {
      const r = await t.api('GET', '/v1/status', { key });
      expect(r.status, String(key)).toBe(401);
      expect(r.body.error.code).toBe('UNAUTHORIZED');
    }
    expect((await t.api('GET', '/v1/status', { headers: { authorization: `Basic ${t.key}` }, key: null })).status).toBe(401);
  });

  it('enforces completions:read and completions:write', async () => {
    t = await startTestService();
    const reader = await t.createKey(['completions:read']);
    const writer = await t.createKey(['completions:write']);
    const sub = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued }, key: writer });
    expect(sub.status).toBe(202);
    const id = sub.body.id;
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued }, key: reader })).status).toBe(403);
    expect((await t.api('DELETE', `/v1/completions/${id}`, { key: reader })).body.error.code).toBe('FORBIDDEN');
    expect((await t.api('POST', '/v1/chat/completions', { body: { model: 'service/auto', messages: [] }, key: reader })).status).toBe(403);
    expect((await t.api('GET', `/v1/completions/${id}`, { key: writer })).status).toBe(403);
    expect((await t.api('GET', '/v1/status', { key: writer })).status).toBe(403);
    expect((await t.api('GET', '/v1/models', { key: writer })).status).toBe(403);
    expect((await t.api('GET', `/v1/completions/${id}`, { key: reader })).status).toBe(200);
    expect((await t.api('DELETE', `/v1/completions/${id}`, { key: writer })).status).toBe(200);
  });

  it('stores only the hash of a key', async () => {
    t = await startTestService();
    const rows = await withDataDirDb(t.dataDir, (db) => db.prepare('SELECT * FROM api_keys').all());
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(t.key);
    expect(t.key).toMatch(/^cb_[0-9A-Za-z]{40}$/);
  });

  it('refuses a Host header that is not localhost or an IP (DNS rebinding)', async () => {
    t = await startTestService();
    const port = new URL(t.url).port;
    const hostStatus = (host: string) =>
      new Promise<number>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/v1/status', headers: { host, authorization: `Bearer ${t.key}` } }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          })
          .on('error', reject);
      });
    expect(await hostStatus('evil.example:80')).toBe(403);
    expect(await hostStatus('localhost.evil.example')).toBe(403);
    expect(await hostStatus(`localhost:${port}`)).toBe(200);
    expect(await hostStatus(`127.0.0.1:${port}`)).toBe(200);
  });
});

describe('request limits per key', () => {
  it('allows 600 writes a minute, then 429 with Retry-After; other keys are unaffected', async () => {
    const clock = new ManualClock();
    t = await startTestService({ clock });
    const key = await t.createKey(['completions:read', 'completions:write']);
    const missing = '/v1/completions/job_missing';
    const results = await Promise.all(Array.from({ length: 600 }, () => t.api('DELETE', missing, { key })));
    expect(results.every((r) => r.status === 404)).toBe(true);
    const limited = await t.api('DELETE', missing, { key });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Every write route shares the budget.
    const chat = await t.api('POST', '/v1/chat/completions', { key, body: { model: 'service/auto', messages: [{ role: 'user', content: 'x' }] } });
    expect(chat.status).toBe(429);
    expect((await t.api('POST', '/v1/completions', { key, body: { prompt: 'x' } })).status).toBe(429);
    expect((await t.api('GET', missing, { key })).status).toBe(404); // reads have their own budget
    expect((await t.api('DELETE', missing)).status).toBe(404); // another key
    clock.advance(60_000);
    expect((await t.api('DELETE', missing, { key })).status).toBe(404);
  });
});

describe('idempotency', () => {
  it('makes one job of twenty simultaneous requests with one key', async () => {
    t = await startTestService();
    const body = { prompt: 'same', ...queued };
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.api('POST', '/v1/completions', { body, headers: { 'idempotency-key': 'k-20' } })),
    );
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.status === 202)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(19);
    expect(await t.service.store.recent(10)).toHaveLength(1);
  });

  it('answers a repeat with the original job, and 409 for a different request', async () => {
    t = await startTestService({ agents: { claude: 1 } });
    const headers = { 'idempotency-key': 'k-1' };
    const first = await t.api('POST', '/v1/completions', { body: { prompt: 'hello', metadata: { a: 1 } }, headers });
    expect(first.status).toBe(200);
    // wait differs: still the same request. Key order differs: still the same.
    const again = await t.api('POST', '/v1/completions', { body: { metadata: { a: 1 }, prompt: 'hello', wait: false }, headers });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const waited = await t.api('POST', '/v1/completions', { body: { prompt: 'hello', metadata: { a: 1 } }, headers });
    expect(waited.body.id).toBe(first.body.id);
    expect(t.agents[0]!.runs).toHaveLength(1);
    const other = await t.api('POST', '/v1/completions', { body: { prompt: 'bye' }, headers });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('CONFLICT');
    const chat = await t.api('POST', '/v1/chat/completions', {
      body: { model: 'service/auto', messages: [{ role: 'user', content: 'hello' }] },
      headers,
    });
    expect(chat.status).toBe(409);
  });

  it('lets a repeat wait for the same running job', async () => {
    t = await startTestService({ agents: { gemini: 1 } });
    const headers = { 'idempotency-key': 'k-run' };
    const body = { prompt: 'slow [[ms=300]]' };
    const [a, b] = await Promise.all([
      t.api('POST', '/v1/completions', { body, headers }),
      t.api('POST', '/v1/completions', { body, headers }),
    ]);
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect(t.agents[0]!.runs).toHaveLength(1);
  });

  it('forgets keys after 24 hours and refuses keys over 255 characters', async () => {
    const clock = new ManualClock();
    t = await startTestService({ clock });
    const headers = { 'idempotency-key': 'k-day' };
    const a = await t.api('POST', '/v1/completions', { body: { prompt: 'a', ...queued }, headers });
    clock.advance(24 * 3_600_000);
    const b = await t.api('POST', '/v1/completions', { body: { prompt: 'b', ...queued }, headers });
    expect(b.status).toBe(202);
    expect(b.body.id).not.toBe(a.body.id);
    const long = await t.api('POST', '/v1/completions', { body: { prompt: 'c', ...queued }, headers: { 'idempotency-key': 'k'.repeat(256) } });
    expect(long.status).toBe(400);
    expect(long.body.error.details.field).toBe('Idempotency-Key');
  });
});

describe('capacity answers for wait:false without callback_url', () => {
  it('503 NO_AGENT_AVAILABLE when no agent can take it, and the job is not kept', async () => {
    t = await startTestService({ agents: { chatgpt: 1 } });
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'claude', wait: false } });
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ code: 'NO_AGENT_AVAILABLE', details: { provider: 'claude' } });
    expect(await t.service.store.recent(10)).toHaveLength(0);
    const ok = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'chatgpt', wait: false } });
    expect(ok.status).toBe(202);
    expect(Object.keys(ok.body).sort()).toEqual(['created_at', 'id', 'status']);
    expect(ok.body.status).toBe('queued');
  });

  it('503 NO_DEVICE_ONLINE while paused; other jobs still queue', async () => {
    t = await startTestService({ agents: { chatgpt: 1 } });
    await t.service.settings.setPaused(true);
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p', wait: false } });
    expect(r.body.error.code).toBe('NO_DEVICE_ONLINE');
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued } })).status).toBe(202);
  });

  it('400 for an agent_id that is not on the account, 503 for one that is busy', async () => {
    t = await startTestService({ agents: { qwen: 1 } });
    const unknown = await t.api('POST', '/v1/completions', { body: { prompt: 'p', agent_id: 'agt_nope' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.field).toBe('agent_id');
    const agentId = t.agents[0]!.id;
    const wrongProvider = await t.api('POST', '/v1/completions', { body: { prompt: 'p', agent_id: agentId, provider: 'claude' } });
    expect(wrongProvider.status).toBe(400);
    const busy = t.api('POST', '/v1/completions', { body: { prompt: 'p [[ms=300]]', agent_id: agentId } });
    await until(() => t.agents[0]!.runs.length === 1);
    const refused = await t.api('POST', '/v1/completions', { body: { prompt: 'q', agent_id: agentId, wait: false } });
    expect(refused.body.error.code).toBe('NO_AGENT_AVAILABLE');
    expect((await busy).body.agent_id).toBe(agentId);
  });

  it('403 FORBIDDEN with details.limit once 1 000 jobs are queued', async () => {
    t = await startTestService();
    const keys = [t.key, await t.createKey(['completions:write'])];
    const results = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) =>
        t.api('POST', '/v1/completions', { body: { prompt: `p${i}`, ...queued }, key: keys[i % 2] }),
      ),
    );
    expect(results.every((r) => r.status === 202)).toBe(true);
    const over = await t.api('POST', '/v1/completions', { body: { prompt: 'one more', ...queued }, key: keys[1] });
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: 'FORBIDDEN', details: { limit: 1_000 } });
    await t.api('DELETE', `/v1/completions/${results[0]!.body.id}`);
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'now fits', ...queued } })).status).toBe(202);
  });
});

describe('validation and limits', () => {
  it('checks each field with its own code and details.field', async () => {
    t = await startTestService();
    const cases: [object, number, string][] = [
      [{}, 400, 'prompt'],
      [{ prompt: '' }, 400, 'prompt'],
      [{ prompt: 'x'.repeat(100_001) }, 413, 'prompt'],
      [{ prompt: 'p', timeout_ms: 4_999 }, 400, 'timeout_ms'],
      [{ prompt: 'p', timeout_ms: 600_001 }, 400, 'timeout_ms'],
      [{ prompt: 'p', deadline_ms: 9_999 }, 400, 'deadline_ms'],
      [{ prompt: 'p', deadline_ms: 3_600_001 }, 400, 'deadline_ms'],
      [{ prompt: 'p', priority: 101 }, 400, 'priority'],
      [{ prompt: 'p', priority: -11 }, 400, 'priority'],
      [{ prompt: 'p', priority: 1.5 }, 400, 'priority'],
      [{ prompt: 'p', wait: 'yes' }, 400, 'wait'],
      [{ prompt: 'p', provider: 'bard' }, 400, 'provider'],
      [{ prompt: 'p', mode: 'continue' }, 400, 'conversation_ref'],
      [{ prompt: 'p', conversation_ref: 'cv_x' }, 400, 'conversation_ref'],
      [{ prompt: 'p', mode: 'continue', conversation_ref: 'cv_unknown' }, 400, 'conversation_ref'],
      [{ prompt: 'p', conversation_ref: 'c'.repeat(2_049), mode: 'continue' }, 400, 'conversation_ref'],
      [{ prompt: 'p', callback_url: 'http://127.0.0.1/hook' }, 400, 'callback_url'],
      [{ prompt: 'p', callback_url: 'not a url' }, 400, 'callback_url'],
      [{ prompt: 'p', callback_url: `https://x.test/${'a'.repeat(2_048)}` }, 400, 'callback_url'],
      [{ prompt: 'p', metadata: { big: 'x'.repeat(4_090) } }, 400, 'metadata'],
      [{ prompt: 'p', metadata: [1] }, 400, 'metadata'],
      [{ prompt: 'p', wiat: true }, 400, 'wiat'],
    ];
    for (const [body, status, field] of cases) {
      const r = await t.api('POST', '/v1/completions', { body });
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(r.body.error.details.field, JSON.stringify(body).slice(0, 80)).toBe(field);
      expect(r.body.error.request_id).toBe(r.headers.get('x-request-id'));
    }
  });

  it("says what is wrong in plain words, never the validator's", async () => {
    t = await startTestService();
    const cases: [string, object, string][] = [
      ['/v1/completions', { prompt: '' }, 'prompt is empty: give at least one character.'],
      ['/v1/completions', { prompt: 'p', priority: 1.5 }, 'priority must be a whole number, not 1.5.'],
      ['/v1/completions', { prompt: 'p', priority: 101 }, 'priority must be 100 or less, not 101.'],
      ['/v1/completions', { prompt: 'p', timeout_ms: 4_999 }, 'timeout_ms must be 5000 or more, not 4999.'],
      ['/v1/completions', { prompt: 'p', wait: 'yes' }, 'wait must be true or false, not "yes".'],
      ['/v1/completions', { prompt: 7 }, 'prompt must be text (a string), not 7.'],
      ['/v1/completions', { prompt: 'p', metadata: [1] }, 'metadata must be an object, not a list.'],
      ['/v1/chat/completions', { model: 'service/auto', messages: [] }, 'messages is empty: give at least one item.'],
    ];
    for (const [path, body, message] of cases) {
      const r = await t.api('POST', path, { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message, JSON.stringify(body)).toBe(message);
    }
  });

  it("answers OpenAI's legacy completions call with the way to chat completions", async () => {
    t = await startTestService();
    // What the openai SDK's client.completions.create sends.
    const r = await t.api('POST', '/v1/completions', { body: { model: 'gpt-3.5-turbo-instruct', prompt: 'Say this is a test', max_tokens: 7, temperature: 0 } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'model', use: '/v1/chat/completions' } });
    expect(r.body.error.message).toMatch(/^model is not a field of \/v1\/completions, ChatBridge's own jobs API: this is OpenAI's legacy completions call\. Ask through chat completions instead: POST \/v1\/chat\/completions/);
    // A native request with an unknown field is told as before.
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'p', temperature: 0 } })).body.error.message).toBe('temperature is not a field of this request.');
  });

  it('names a mistyped field next to the missing one it stands for', async () => {
    t = await startTestService();
    const r = await t.api('POST', '/v1/completions', { body: { promt: 'Say hello', provider: 'claude' } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('prompt is required. The body has "promt": did you mean prompt?');
    expect(r.body.error.details).toEqual({ field: 'prompt', unknown_field: 'promt' });
    // Nothing near: the plain message.
    expect((await t.api('POST', '/v1/completions', { body: { question: 'x' } })).body.error.message).toBe('prompt is required.');
  });

  it('accepts a prompt of exactly 100 000 characters and metadata of exactly 4 096 bytes', async () => {
    t = await startTestService();
    const metadata = { m: 'x'.repeat(4_096 - '{"m":""}'.length) };
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'y'.repeat(100_000), metadata, ...queued } });
    expect(r.status).toBe(202);
    const job = await t.api('GET', `/v1/completions/${r.body.id}`);
    expect(job.body.metadata).toEqual(metadata);
  });

  it('answers a body over 1 MiB, bad JSON and a wrong content type in the envelope', async () => {
    t = await startTestService();
    const big = await t.api('POST', '/v1/completions', { body: JSON.stringify({ prompt: 'p', metadata: { x: 'x'.repeat(1_100_000) } }) });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const bad = await t.api('POST', '/v1/completions', { body: '{"prompt":' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
    const text = await t.api('POST', '/v1/completions', { body: 'prompt=p', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(400);
    const form = await t.api('POST', '/v1/completions', { body: 'prompt=p', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(400);
  });

  it('answers unknown routes and methods with a 404 envelope and a request id', async () => {
    t = await startTestService();
    for (const [method, path] of [['GET', '/nope'], ['GET', '/v2/completions'], ['PUT', '/v1/completions'], ['PATCH', '/v1/completions/job_x']]) {
      const r = await t.api(method!, path!);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('NOT_FOUND');
      expect(r.body.error.request_id).toMatch(/^req_/);
      expect(r.headers.get('x-request-id')).toBe(r.body.error.request_id);
    }
    expect((await t.api('GET', '/v1/completions/job_unknown')).status).toBe(404);
  });

  it('puts X-Request-Id on successful responses too', async () => {
    t = await startTestService();
    const r = await t.api('GET', '/v1/status');
    expect(r.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
  });
});

describe('long polls', () => {
  it('wakes a waiter within milliseconds of the job finishing, and a disconnect leaves the job alone', async () => {
    t = await startTestService({ agents: { chatgpt: 1 } });
    const sub = await t.api('POST', '/v1/completions', { body: { prompt: 'p [[ms=200]]', ...queued } });
    const started = Date.now();
    const r = await t.api('GET', `/v1/completions/${sub.body.id}?wait=true`);
    expect(r.body.status).toBe('succeeded');
    expect(Date.now() - started).toBeLessThan(1_000);

    const controller = new AbortController();
    const gone = fetch(`${t.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'q [[ms=300]]' }),
      signal: controller.signal,
    }).catch((e: Error) => e.name);
    await until(() => t.agents[0]!.runs.length === 2);
    controller.abort();
    expect(await gone).toBe('AbortError');
    await until(() => t.service.events.size() === 0);
    await until(() => t.agents[0]!.runs[1]!.ended === 'answered');
    const id = (await jobIdWhere(t.service.store, (prompt) => prompt.startsWith('q')))!;
    expect((await t.service.store.get(id))!.status).toBe('succeeded');
  });

  it('reports a refusal as 502 PROMPT_REJECTED with the attempt record, and does not retry it', async () => {
    t = await startTestService({ agents: { claude: 2 } });
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p [[fail=rejected]]' } });
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('PROMPT_REJECTED');
    expect(r.body.error.details.attempts).toHaveLength(1);
    expect(r.body.error.details.job_id).toMatch(/^job_/);
    const job = await t.api('GET', `/v1/completions/${r.body.error.details.job_id}`);
    expect(job.body).toMatchObject({ status: 'failed', response: null, error: { code: 'PROMPT_REJECTED' } });
  });
});

describe('status, models and the OpenAPI document', () => {
  it('reports every provider, the queue and the agents', async () => {
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
    t = await startTestService({ agents: { gemini: 1, claude: 1 } });
    t.agents[1]!.setReadiness('needs_login');
    const m = (await t.api('GET', '/v1/models')).body;
    expect(m.object).toBe('list');
    expect(m.data.map((x: { id: string }) => x.id)).toEqual(['service/auto', 'service/gemini']);
    expect(m.data[0]).toMatchObject({ object: 'model', owned_by: 'chatbridge', created: expect.any(Number) });
  });

  it('serves a valid OpenAPI 3.1 document built from the validating schemas', async () => {
    t = await startTestService();
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
