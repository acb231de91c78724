/**
 * The 1 000-queued-jobs limit (api.md "Limits"): the account's, whichever of its keys submits;
 * over it, 403 FORBIDDEN with `details.limit` on every submitting route, until a job leaves
 * the queue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyEnvelope } from '../support/contract-answers.js';
import { startTestService, type TestService } from '../support/harness.js';
import { HOOK } from '../support/hostile-values.js';

const CONCURRENCY = 20;

describe('the 1 000-queued-jobs limit', () => {
  let t: TestService;

  beforeAll(async () => {
    // No agents: every accepted job stays queued.
    t = await startTestService({ listen: false });
  });

  afterAll(async () => {
    await t?.stop();
  });

  it('refuses the 1 001st queued job with 403 FORBIDDEN on every submitting route, until one leaves the queue', async () => {
    const keys = [await t.createKey(['completions:read', 'completions:write']), await t.createKey(['completions:read', 'completions:write'])];
    const ids: string[] = [];
    const problems: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < 1_000) {
          const n = next++;
          const res = await t.api('POST', '/v1/completions', { key: keys[n % 2]!, body: { prompt: `fill ${n}`, wait: false, callback_url: HOOK } });
          if (res.status === 202) ids.push(res.body.id);
          else problems.push(`job ${n}: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }),
    );
    expect(problems.slice(0, 5)).toEqual([]);
    expect(ids).toHaveLength(1_000);
    expect((await t.api('GET', '/v1/status', { key: keys[0]! })).body.queue.depth).toBe(1_000);

    // A third key changes nothing: the limit is the account's.
    const third = await t.createKey(['completions:read', 'completions:write']);
    const attempts = [
      await t.api('POST', '/v1/completions', { key: third, body: { prompt: 'one too many', wait: false, callback_url: HOOK } }),
      await t.api('POST', '/v1/completions', { key: third, body: { prompt: 'one too many', wait: true } }),
      await t.api('POST', '/v1/chat/completions', { key: third, body: { model: 'service/auto', messages: [{ role: 'user', content: 'one too many' }] } }),
    ];
    for (const res of attempts) {
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(verifyEnvelope(res.body, 403, res.headers.get('x-request-id'), { code: ['FORBIDDEN'] })).toEqual([]);
      expect(res.body.error.details?.limit).toBe(1_000);
    }
    // Cancelling one frees one place.
    const cancelled = await t.api('DELETE', `/v1/completions/${ids[0]}`, { key: third });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const again = await t.api('POST', '/v1/completions', { key: third, body: { prompt: 'room again', wait: false, callback_url: HOOK } });
    expect(again.status).toBe(202);
    expect((await t.api('POST', '/v1/completions', { key: third, body: { prompt: 'full again', wait: false, callback_url: HOOK } })).status).toBe(403);
  }, 60_000);
});
