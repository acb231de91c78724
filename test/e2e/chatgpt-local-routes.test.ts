/**
 * ChatGPT's provisional `/c/local-…` routes (research 2026-11-26): while a new chat answers,
 * the address is `/c/local-<id>`, which cannot be opened again; the real one follows once the
 * answer is done. The conversation kept for a follow-up must be the real one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from '../support/e2e.js';

describe('ChatGPT with provisional /c/local- routes', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E('chatgpt', 1, { localRoutes: true });
  }, 60_000);
  afterAll(async () => e?.stop());

  it('keeps the real address, not the provisional one, and continues there', async () => {
    const first = await e.api('POST', '/v1/completions', { body: { prompt: 'Provisional first' } });
    expect(first.status, JSON.stringify(first.body).slice(0, 300)).toBe(200);
    const address = (await e.driver.conversation(first.body.conversation_ref))!.address;
    expect(new URL(address).pathname).toMatch(/^\/c\/[0-9a-f-]{36}$/);
    const next = await e.api('POST', '/v1/completions', { body: { prompt: 'Follow-up', mode: 'continue', conversation_ref: first.body.conversation_ref } });
    expect(next.status, JSON.stringify(next.body).slice(0, 300)).toBe(200);
    expect(next.body.response).toContain('turn 2');
  }, 60_000);
});
