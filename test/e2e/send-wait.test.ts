/**
 * A send the page is working on is waited for, not pressed again (issue 18 §3): the page
 * keeps the prompt in its composer with the send control disabled for a while before it
 * takes it ([[sim:send-busy=MS]]), and a press meanwhile would send the prompt twice. The
 * wait is 45 s in use; here FlowLimits.sentWorkingMs shortens it, so the test takes seconds.
 * A cancel meanwhile ends that wait, as it ends any of the flow's (flow-context.ts).
 * Real Chromium against the simulated Qwen (its send control stays in view, disabled).
 */
import { it, type TestContext } from 'vitest';
import { pageWorld } from '../../agents/providers/page-world.js';
import type { Helpers } from '../../agents/providers/page-helpers/types.js';
import { packJson, type PagePackJson } from '../../agents/providers/site.js';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { describeBeside } from '../support/beside.js';
import { startE2E } from '../support/e2e.js';
import { until } from '../support/until.js';

/** `prompt` to a service of its own (stopped when `test` ends), whose agent waits `sentWorkingMs` for a send the page works on. */
async function ask(test: TestContext, sentWorkingMs: number, prompt: string) {
  const e = await startE2E('qwen', 1, {}, { limits: { sentWorkingMs } });
  test.onTestFinished(() => e.stop());
  const started = Date.now();
  const r = await e.api('POST', '/v1/completions', { body: { provider: 'qwen', prompt, timeout_ms: 60_000 } });
  const sends = e.sim.log.sends.filter((s) => s.prompt === prompt);
  return { r, started, sends };
}

// Each test has its own service and site: the two waits run side by side.
describeBeside('a send the page works on before it takes it', () => {
  it('is waited for past the quiet 5 s while the page shows it working, and sent once', async (test) => {
    const prompt = 'Slow to take [[sim:send-busy=7000]]';
    const { r, started, sends } = await ask(test, 10_000, prompt);
    test.expect(r.status, JSON.stringify(r.body)).toBe(200);
    test.expect(r.body.response).toBe(simulatedAnswer('Qwen', 'qwen', prompt, 1));
    test.expect(sends.map((s) => s.kind)).toEqual(['answer']);
    test.expect(sends[0]!.at - started).toBeGreaterThanOrEqual(7_000);
  }, 60_000);

  it('is pressed again only once the whole wait is over, the prompt still in the composer', async (test) => {
    const prompt = 'Slower than the wait [[sim:send-busy=12000]]';
    const { r, started, sends } = await ask(test, 9_000, prompt);
    test.expect(r.status, JSON.stringify(r.body)).toBe(200);
    // Enter, after 9 s of the page at work: a site that queues it sends the prompt again.
    const repeat = sends.find((s) => s.kind === 'repeat')!;
    test.expect(repeat.at - started).toBeGreaterThanOrEqual(9_000);
    test.expect(sends.map((s) => s.kind).sort()).toEqual(['answer', 'repeat']);
  }, 60_000);

  it('is given up at once when its job is cancelled meanwhile: the agent takes the next job long before the page would have', async (test) => {
    const e = await startE2E('qwen', 1);
    test.onTestFinished(() => e.stop());
    const prompt = 'Never mind [[sim:send-busy=30000]]';
    const submitted = await e.api('POST', '/v1/completions', { body: { provider: 'qwen', prompt, wait: false } });
    const page = e.browserAgents[0]!.page()!;
    // Pressed, and the page at work on it: the agent waits for the send to show.
    const working = (h: Helpers, json: PagePackJson) => {
      const pack = h.pack(json);
      const button = h.find(pack.send) as HTMLButtonElement | null;
      const composer = h.find(pack.composer) as HTMLElement | null;
      return !!button && (button.disabled || button.getAttribute('aria-disabled') === 'true') && ((composer as HTMLTextAreaElement | null)?.value ?? composer?.innerText ?? '').includes('Never mind');
    };
    await until(() => pageWorld(page).run(working, packJson(e.site.page)).catch(() => false), 20_000, 'the send pressed and the page at work on it');
    const cancelledAt = Date.now();
    test.expect((await e.api('DELETE', `/v1/completions/${submitted.body.id}`)).body.status).toBe('cancelled');
    const next = await e.api('POST', '/v1/completions', { body: { provider: 'qwen', prompt: 'Next one' } });
    test.expect(next.status, JSON.stringify(next.body)).toBe(200);
    // Not after the page's 30 s at work (the send's wait is up to 45 s): the cancel ended it.
    test.expect(Date.now() - cancelledAt).toBeLessThan(20_000);
    test.expect(e.sim.log.sends.map((s) => s.prompt)).toEqual(['Next one']);
  }, 90_000);
});
