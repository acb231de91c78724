/**
 * Validation as a caller meets it: each field refused with its own code and `details.field`,
 * in plain words rather than the validator's, OpenAI's legacy completions call pointed to chat
 * completions, a mistyped field named, the limits at their exact values, bodies that are not
 * JSON, unknown routes, and an X-Request-Id on every answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';

let t: TestService;
afterEach(async () => t?.stop());
const queued = { wait: false, callback_url: 'https://127.0.0.1:9/hook' };

describe('validation and limits', () => {
  it('checks each field with its own code and details.field', async () => {
    t = await startTestService({ listen: false });
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
    t = await startTestService({ listen: false });
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
    t = await startTestService({ listen: false });
    // What the openai SDK's client.completions.create sends.
    const r = await t.api('POST', '/v1/completions', { body: { model: 'gpt-3.5-turbo-instruct', prompt: 'Say this is a test', max_tokens: 7, temperature: 0 } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'model', use: '/v1/chat/completions' } });
    expect(r.body.error.message).toMatch(/^model is not a field of \/v1\/completions, ChatBridge's own jobs API: this is OpenAI's legacy completions call\. Ask through chat completions instead: POST \/v1\/chat\/completions/);
    // A native request with an unknown field is told as before.
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'p', temperature: 0 } })).body.error.message).toBe('temperature is not a field of this request.');
  });

  it('names a mistyped field next to the missing one it stands for', async () => {
    t = await startTestService({ listen: false });
    const r = await t.api('POST', '/v1/completions', { body: { promt: 'Say hello', provider: 'claude' } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('prompt is required. The body has "promt": did you mean prompt?');
    expect(r.body.error.details).toEqual({ field: 'prompt', unknown_field: 'promt' });
    // Nothing near: the plain message.
    expect((await t.api('POST', '/v1/completions', { body: { question: 'x' } })).body.error.message).toBe('prompt is required.');
  });

  it('accepts a prompt of exactly 100 000 characters and metadata of exactly 4 096 bytes', async () => {
    t = await startTestService({ listen: false });
    const metadata = { m: 'x'.repeat(4_096 - '{"m":""}'.length) };
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'y'.repeat(100_000), metadata, ...queued } });
    expect(r.status).toBe(202);
    const job = await t.api('GET', `/v1/completions/${r.body.id}`);
    expect(job.body.metadata).toEqual(metadata);
  });

  it('answers a body over 1 MiB, bad JSON and a wrong content type in the envelope', async () => {
    t = await startTestService({ listen: false });
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
    t = await startTestService({ listen: false });
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
    t = await startTestService({ listen: false });
    const r = await t.api('GET', '/v1/status');
    expect(r.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
  });
});
