/**
 * An agent set aside by a verification heals on its own: no click, no restart. Real
 * Chromium on a simulated Qwen behind Cloudflare whose interstitial goes away after one
 * page load (as a passed Turnstile does): the agent looks again 15 s later, on the
 * back-off, finds its page ready, and runs the job that waited for it. The service's clock
 * skips those 15 s (the back-off runs on it) instead of the test sitting them out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from '../support/e2e.js';
import { SkippingClock } from '../support/skipping-clock.js';
import { until } from '../support/until.js';

describe('an agent that heals on its own', () => {
  let e: E2E;
  const clock = new SkippingClock();
  beforeAll(async () => {
    e = await startE2E('qwen', 1, { turnstile: true }, { clock });
  }, 60_000);
  afterAll(async () => e?.stop());

  it('is set aside by a verification, says when it looks again, and takes the waiting job once its page is clear', async () => {
    const agent = e.browserAgents[0]!;
    const started = Date.now();
    const pending = e.api('POST', '/v1/completions', { body: { provider: 'qwen', prompt: 'Checked [[sim:challenge]]' } });
    // Once its attempt has ended (busy until then):
    const view = await until(async () => (await e.service.admin.state.read()).agents.find((a) => a.state === 'error' && a.next_check_at), 30_000, 'the agent set aside by the challenge');
    expect(view.detail).toMatch(/verification/);
    const lookAt = Date.parse(view.next_check_at!);
    expect(lookAt - clock.now()).toBeGreaterThan(5_000);
    expect(lookAt - clock.now()).toBeLessThanOrEqual(15_000);
    clock.skip(lookAt - clock.now());

    const r = await pending;
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(clock.now()).toBeGreaterThanOrEqual(lookAt);
    expect(Date.now() - started).toBeLessThan(30_000);
    const attempts = await e.driver.attempts(r.body.id);
    expect(attempts.map((a) => a.error_code ?? a.outcome)).toEqual(['CHALLENGE', 'succeeded']);
    expect(agent.readiness()).toBe('idle');
    expect((await e.service.admin.state.read()).agents[0]!.next_check_at).toBeNull();
  }, 90_000);
});
