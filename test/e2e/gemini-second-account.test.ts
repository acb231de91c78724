/**
 * Gemini as the 2026 evidence shows it (research 2026-11-26): an account signed in as the
 * second Google account lives under `/u/1/app/<id>`, and after "Something went wrong" the
 * page can leave its Stop on screen. Both end in seconds, as they should: an answer with its
 * address, an error retried and then final, not a wait to the attempt's timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from '../support/e2e.js';

describe('Gemini under /u/1/', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E('gemini', 1, { userPath: '/u/1' });
  }, 60_000);
  afterAll(async () => e?.stop());

  it('answers, keeps the /u/1/app/<id> address, and continues the conversation there', async () => {
    const first = await e.api('POST', '/v1/completions', { body: { prompt: 'Second account' } });
    expect(first.status, JSON.stringify(first.body).slice(0, 300)).toBe(200);
    const address = (await e.driver.conversation(first.body.conversation_ref))!.address;
    expect(new URL(address).pathname).toMatch(/^\/u\/1\/app\/[0-9a-f]{16}$/);
    const next = await e.api('POST', '/v1/completions', { body: { prompt: 'And again', mode: 'continue', conversation_ref: first.body.conversation_ref } });
    expect(next.status, JSON.stringify(next.body).slice(0, 300)).toBe(200);
    expect(next.body.response).toContain('turn 2');
  }, 60_000);

  it('"Something went wrong" in the answer is final though Stop stays: retried, then PROVIDER_ERROR, no attempt timing out', async () => {
    const r = await e.api('POST', '/v1/completions', { body: { prompt: 'Broken [[sim:error-stuck]]', timeout_ms: 60_000 } });
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(502);
    expect(r.body.error.code).toBe('PROVIDER_ERROR');
    const attempts = await e.driver.attempts(r.body.error.details.job_id);
    expect(attempts.map((a) => a.error_code)).toEqual(['PROVIDER_ERROR', 'PROVIDER_ERROR', 'PROVIDER_ERROR']);
    for (const a of attempts) expect(a.ended_at! - a.started_at).toBeLessThan(30_000);
  }, 120_000);
});
