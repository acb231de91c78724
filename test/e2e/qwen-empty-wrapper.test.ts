/**
 * Qwen can hydrate a reopened chat's answer into an empty wrapper (research 2026-11-26): the
 * answer shows finished, its wrapper holds nothing and its copy gives nothing, and the page
 * loaded again shows it. The job reads it from the conversation loaded anew instead of taking
 * an empty answer for a changed site. Real Chromium against the simulated Qwen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { startE2E, type E2E } from '../support/e2e.js';

describe("Qwen's empty hydrated answer wrapper", () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E('qwen', 1);
  }, 60_000);
  afterAll(async () => e?.stop());

  const ask = (body: Record<string, unknown>) => e.api('POST', '/v1/completions', { body: { provider: 'qwen', ...body } });

  it('is read again from the conversation loaded anew: the follow-up gets its own answer', async () => {
    const first = await ask({ prompt: 'Open a chat' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const prompt = 'A follow-up [[sim:hydrate-empty]]';
    const r = await ask({ prompt, mode: 'continue', conversation_ref: first.body.conversation_ref });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.response).toBe(simulatedAnswer('Qwen', 'qwen', prompt, 2));
    expect(r.body.attempts).toBe(1);
    expect(e.sim.log.sends.filter((s) => s.prompt === prompt)).toHaveLength(1);
  }, 60_000);
});
