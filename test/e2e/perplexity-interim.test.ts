/**
 * Perplexity's research answers first post an interim paragraph ("I'll research the primary
 * sources first…") that sits unchanged for seconds (research 2026-11-26): with Stop hidden
 * meanwhile, "stop gone and text settled" would take it for the answer. The pack's `interim`
 * words keep it from counting; the job gets the answer that follows. The settle wait is cut
 * to 1 s, so a stub still for 3 s would be taken were it not known for what it is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { startE2E, type E2E } from '../support/e2e.js';

describe("Perplexity's interim research paragraph", () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E('perplexity', 1, {}, { limits: { settleMs: 1_000 } });
  }, 60_000);
  afterAll(async () => e?.stop());

  it('is never taken for the answer: the job gets the answer that follows it', async () => {
    const prompt = 'Research the sources [[sim:interim=3000]]';
    const r = await e.api('POST', '/v1/completions', { body: { provider: 'perplexity', prompt } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.response).toBe(simulatedAnswer('Perplexity', 'perplexity', prompt, 1));
    expect(r.body.attempts).toBe(1);
  }, 60_000);
});
