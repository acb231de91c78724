/**
 * Prompt fidelity under load (issue 18 §2): Gemini's Quill editor takes a paste on a timer
 * (its paste catcher gets the focus, and a tick later the text moves into the editor and the
 * focus comes back). Text the flow types before that tick lands in the catcher and arrives
 * altered: a blank line added, a tab turned to spaces. With the page's CPU throttled through
 * CDP, the tick comes late; the flow must wait for it and type into the editor itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from '../support/e2e.js';

const PROMPTS = [
  'Tabs\tand  spaces\n\n\nthree blank lines above\n\tindented\ttabbed\n  two spaces  \nend',
  'def f():\n\treturn {"a": [1,\t2]}\n\n# done',
  '  leading spaces\n\n\n\ntrailing tab\t',
];

describe('a Quill editor that takes a paste on a timer, its page throttled 8×', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E('gemini', 1, { layout: 'quill-clipboard' });
    const page = e.browserAgents[0]!.page()!;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 8 });
  }, 60_000);
  afterAll(async () => e?.stop());

  it('sends every prompt byte for byte', async () => {
    for (const prompt of PROMPTS) {
      const r = await e.api('POST', '/v1/completions', { body: { prompt, timeout_ms: 60_000 } });
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    }
    expect(e.sim.log.sends.map((s) => s.prompt)).toEqual(PROMPTS);
  }, 180_000);
});
