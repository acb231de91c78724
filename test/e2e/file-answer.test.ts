/**
 * An answer that is not text (issue 18 §4): Qwen can answer with a generated file, a PDF
 * card and no words. The job ends 502 saying what the answer was, never a 200 with empty (or
 * card-label) text, and the agent stays ready: the site did nothing wrong.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from '../support/e2e.js';

describe('a Qwen answer that is a file', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E('qwen', 1);
  }, 60_000);
  afterAll(async () => e?.stop());

  it('ends the job 502 ANSWER_NOT_TEXT naming the file after one attempt, and leaves the agent idle', async () => {
    const r = await e.api('POST', '/v1/completions', { body: { prompt: 'Make me a PDF [[sim:file-answer]]' } });
    expect(r.status, JSON.stringify(r.body).slice(0, 600)).toBe(502);
    expect(r.body.error.code, r.body.error.message).toBe('ANSWER_NOT_TEXT');
    expect(r.body.error.message).toContain('report-1.pdf');
    const attempts = await e.driver.attempts(r.body.error.details.job_id);
    // Sent once: another attempt would only make another file.
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.detail).toBe('Qwen answered with a file ("report-1.pdf"), not text; ChatBridge hands back text answers only.');
    expect(e.browserAgents[0]!.readiness()).toBe('idle');
    // A text answer right after is answered as ever.
    const next = await e.api('POST', '/v1/completions', { body: { prompt: 'Now in words' } });
    expect(next.status).toBe(200);
  }, 120_000);
});
