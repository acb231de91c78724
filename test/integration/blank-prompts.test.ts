/**
 * A prompt a person would not see (issue 19, "A blank prompt sets accounts aside") is the
 * caller's mistake: 400 INVALID_REQUEST in plain words on every path, no job, and every
 * agent stays as it was.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hasVisibleText } from '../../main/core/text.js';
import { startTestService, type TestService } from '../support/harness.js';

let t: TestService;
afterEach(async () => t?.stop());

const BLANKS = ['   ', '\n\n\t', '\u200b', ' \u200b\u200d\u2060\ufeff ', '\u00ad', '\u3164\u2800', '\u0001\u007f '];

describe('prompts without visible text', () => {
  it('hasVisibleText tells blank and invisible text from text', () => {
    for (const blank of BLANKS) expect(hasVisibleText(blank), JSON.stringify(blank)).toBe(false);
    for (const text of ['a', ' x ', '\u200b.', '😀', '\u00a0é']) expect(hasVisibleText(text), JSON.stringify(text)).toBe(true);
  });

  it('POST /v1/completions and /v1/chat/completions refuse them with 400, make no job, and leave the agents idle', async () => {
    t = await startTestService({ listen: false, agents: { chatgpt: 1, claude: 1 } });
    for (const prompt of BLANKS) {
      const r = await t.api('POST', '/v1/completions', { body: { prompt } });
      expect(r.status, JSON.stringify(prompt)).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'prompt' } });
      expect(r.body.error.message).toBe('prompt has no visible text: it is empty, or only spaces, line breaks or invisible characters.');
    }
    const chats = [
      [{ role: 'user', content: ' \u200b ' }],
      [{ role: 'user', content: [{ type: 'text', text: '\n' }] }],
      // Labels alone ("System: ", "User: ") are not a prompt.
      [
        { role: 'system', content: '' },
        { role: 'user', content: '\t' },
      ],
    ];
    for (const messages of chats) {
      const r = await t.api('POST', '/v1/chat/completions', { body: { model: 'service/auto', messages } });
      expect(r.status, JSON.stringify(messages)).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'messages' } });
      expect(r.body.error.message).toMatch(/no visible text/);
    }
    expect(await t.driver.recent(10)).toHaveLength(0);
    expect(t.agents.every((a) => a.readiness() === 'idle')).toBe(true);
    // A prompt with text next to the blanks still goes.
    const ok = await t.api('POST', '/v1/completions', { body: { prompt: ' \u200b hello ' } });
    expect(ok.status).toBe(200);
  });
});
