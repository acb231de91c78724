/**
 * A send the page is working on is waited for, not pressed again (issue 18 §3): the page
 * keeps the prompt in its composer with the send control disabled for a while before it
 * takes it ([[sim:send-busy=MS]]), and a press meanwhile would send the prompt twice. The
 * wait is 45 s in use; here FlowLimits.sentWorkingMs shortens it, so the test takes seconds.
 * Real Chromium against the simulated Qwen (its send control stays in view, disabled).
 */
import { it, type TestContext } from 'vitest';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { describeBeside } from '../support/beside.js';
import { startE2E } from '../support/e2e.js';

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
});
