/**
 * The per-key request limits (api.md "Limits": 600 writes and 1 200 reads a minute): a 429
 * RATE_LIMITED with a Retry-After in seconds once a key has spent its minute, while other
 * keys and the key's other budget are unaffected. (That every write route shares one budget
 * is checked below, with a stopped clock.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { verifyEnvelope, type Reply } from '../support/contract-answers.js';
import { startTestService, type TestService } from '../support/harness.js';
import { JSON_TYPE } from '../support/hostile-values.js';
import { ManualClock } from '../support/manual-clock.js';
import { hostileService, type Case } from '../support/request-cases.js';

describe('request limits per key', () => {
  const s = hostileService();

  it('per-key limits: 429 with Retry-After once a key spent its minute, other keys and budgets unaffected', async () => {
    const writer = await s.t.createKey(['completions:read', 'completions:write']);
    const reader = await s.t.createKey(['completions:read', 'completions:write']);
    const burst = (key: string, method: string, path: string, n: number, body?: string): Case[] =>
      Array.from({ length: n }, (_, i) => ({
        name: `${method} #${i}`,
        method,
        path,
        headers: body ? JSON_TYPE : undefined,
        body,
        auth: `Bearer ${key}`,
        expect: { status: [400, 404, 200] },
      }));
    // 600 writes are within the key's minute (invalid bodies still spend the budget, and are cheap).
    await s.expectNoProblems(burst(writer, 'POST', '/v1/completions', 600, '{}'));
    // The budget refills at 10 per second, so the limit shows within a few more requests.
    let limited: Reply | undefined;
    for (let i = 0; i < 100 && !limited; i++) {
      const r = await s.send({ name: 'over', method: 'POST', path: '/v1/completions', headers: JSON_TYPE, body: '{}', expect: { status: [] } }, `Bearer ${writer}`);
      if ('error' in r) throw new Error(r.error);
      if (r.status === 429) limited = r;
      else expect(r.status).toBe(400);
    }
    expect(limited, 'no 429 after 700 writes with one key').toBeDefined();
    const retryAfter = Number(limited!.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${limited!.headers['retry-after']}`).toBe(true);
    expect(verifyEnvelope(JSON.parse(limited!.text), 429, limited!.headers['x-request-id'], { code: ['RATE_LIMITED'] })).toEqual([]);
    // Reads have their own budget; another key has its own. (That every write route shares
    // one budget is checked with a stopped clock below: here the budget
    // refills in real time, 10 a second, and a loaded machine made that check racy.)
    expect((await s.t.api('GET', '/v1/status', { key: writer })).status).toBe(200);
    expect((await s.t.api('POST', '/v1/completions', { key: reader, body: {} })).status).toBe(400);

    // Reads: 1 200 a minute.
    await s.expectNoProblems(burst(reader, 'GET', '/v1/models', 1_200));
    let readLimited: Reply | undefined;
    for (let i = 0; i < 200 && !readLimited; i++) {
      const r = await s.send({ name: 'over', method: 'GET', path: '/v1/status', expect: { status: [] } }, `Bearer ${reader}`);
      if ('error' in r) throw new Error(r.error);
      if (r.status === 429) readLimited = r;
      else expect(r.status).toBe(200);
    }
    expect(readLimited, 'no 429 after 1 400 reads with one key').toBeDefined();
    expect(Number(readLimited!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(verifyEnvelope(JSON.parse(readLimited!.text), 429, readLimited!.headers['x-request-id'], { code: ['RATE_LIMITED'] })).toEqual([]);
    // The reader's writes are untouched by its reads.
    expect((await s.t.api('POST', '/v1/completions', { key: reader, body: {} })).status).toBe(400);
  }, 60_000);
});

describe('request limits per key, the clock stopped', () => {
  let t: TestService;
  afterEach(async () => t?.stop());

  it('allows 600 writes a minute, then 429 with Retry-After; other keys are unaffected', async () => {
    const clock = new ManualClock();
    t = await startTestService({ listen: false, clock });
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
