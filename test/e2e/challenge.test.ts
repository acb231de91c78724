/**
 * Cloudflare in front of the sites: the 2026 interstitial, whose Turnstile iframe sits in a
 * closed shadow root where no selector reaches it, must be reported as a challenge (the
 * agent set aside for its person, the job run elsewhere); the invisible Turnstile and the
 * bot-detection snippet on a normal page must not be.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import type { Provider } from '../../main/core/providers.js';
import { startE2E, type E2E } from '../support/e2e.js';
import { openSimPage, typeAndPress, type SimPage } from '../support/sim-page.js';
import { describeBeside, inOrder } from '../support/beside.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

describeBeside('the simulated interstitial', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await takeTestBrowser();
  });
  afterAll(async () => giveBackTestBrowser(browser));
  let s: SimPage;
  beforeAll(async () => {
    s = await openSimPage(browser, 'qwen', { look: { turnstile: true }, viewport: { width: 1280, height: 720 } });
  }, 30_000);
  afterAll(async () => s?.close());

  inOrder('guards a normal page with the bot-detection snippet and an invisible Turnstile, the page itself intact', async ({ expect }) => {
    expect(await s.page.title()).toBe('Qwen Chat');
    // Words a careless detector would take for a challenge: Cloudflare's path in the page,
    // its detection script running in a hidden frame.
    expect(await s.page.content()).toContain('/cdn-cgi/challenge-platform/');
    const params = await Promise.all(s.page.frames().map((f) => f.evaluate(() => typeof (window as unknown as { __CF$cv$params?: object }).__CF$cv$params)));
    expect(params).toContain('object');
    expect(await s.page.locator('.cf-turnstile').count()).toBe(1);
    expect(await s.page.locator('textarea.message-input-textarea').isVisible()).toBe(true);
  });

  inOrder('answers a challenged page load with a near-empty 403 page whose widget no selector reaches', async ({ expect }) => {
    const navigation = s.page.waitForResponse((r) => r.request().isNavigationRequest());
    await typeAndPress(s, 'textarea.message-input-textarea', 'Checked [[sim:challenge]]');
    const response = await navigation;
    expect(response.status()).toBe(403);
    expect(response.headers()['cf-mitigated']).toBe('challenge');
    await s.page.waitForFunction(() => document.querySelector('.main-content')?.textContent?.includes('Verify you are human'));
    expect(await s.page.title()).toBe('Just a moment...');
    expect(await s.page.evaluate(() => typeof (window as unknown as { _cf_chl_opt?: object })._cf_chl_opt)).toBe('object');
    expect(await s.page.evaluate(() => [...document.scripts].some((x) => x.src.includes('/cdn-cgi/challenge-platform/')))).toBe(true);
    // The widget is there (its frame is loaded) but sits in a closed shadow root.
    await expect.poll(() => s.page.frames().length).toBe(2);
    expect(await s.page.locator('iframe').count()).toBe(0);
    expect(await s.page.evaluate(() => document.querySelectorAll('iframe[src*="challenges.cloudflare.com"]').length)).toBe(0);
  });

  inOrder('lets the page through once the person ticks the box', async ({ expect }) => {
    const widget = s.page.frames().find((f) => f !== s.page.mainFrame())!;
    await Promise.all([s.page.waitForEvent('load'), widget.locator('input[type="checkbox"]').click()]);
    expect(await s.page.title()).toBe('Qwen Chat');
    await s.page.locator('textarea.message-input-textarea').waitFor();
  });
});

/** The same checks through ChatBridge, on two providers whose packs know nothing of Cloudflare. */
for (const provider of ['qwen', 'perplexity'] as Provider[]) {
  describeBeside(`${SIM_SITES[provider].name} behind Cloudflare`, () => {
    let e: E2E;
    beforeAll(async () => {
      e = await startE2E(provider, 2, { turnstile: true });
    }, 60_000);
    afterAll(async () => e?.stop());
    const ask = (body: Record<string, unknown>) => e.api('POST', '/v1/completions', { body: { provider, ...body } });

    inOrder('answers on a page that carries an invisible Turnstile', async ({ expect }) => {
      const r = await ask({ prompt: 'Guarded page' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.attempts).toBe(1);
      expect(r.body.response).toBe(simulatedAnswer(SIM_SITES[provider].name, provider, 'Guarded page', 1));
    });

    inOrder('reports the interstitial as a challenge: the agent is set aside, the job runs elsewhere', async ({ expect }) => {
      const r = await ask({ prompt: 'Checked [[sim:challenge]]' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const [first, second] = await e.driver.attempts(r.body.id);
      expect(first).toMatchObject({ outcome: 'failed', error_code: 'CHALLENGE' });
      expect(second!.agent_id).not.toBe(first!.agent_id);
      const challenged = e.browserAgents.find((a) => a.id === first!.agent_id)!;
      expect(challenged.readiness()).toBe('error');
      expect(await challenged.page()!.title()).toBe('Just a moment...');
      // The person solves it in the agent's window; the agent looks again and is ready.
      await challenged.recheck();
      expect(challenged.readiness()).toBe('idle');
    });

    inOrder('reports the bare "Verifying..." interstitial, which has none of Cloudflare\'s scripts, as a challenge too', async ({ expect }) => {
      const r = await ask({ prompt: 'Verified [[sim:verifying]]' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const [first, second] = await e.driver.attempts(r.body.id);
      expect(first).toMatchObject({ outcome: 'failed', error_code: 'CHALLENGE' });
      expect(second!.agent_id).not.toBe(first!.agent_id);
      const challenged = e.browserAgents.find((a) => a.id === first!.agent_id)!;
      expect(await challenged.page()!.title()).toBe('Verifying...');
      await challenged.recheck();
      expect(challenged.readiness()).toBe('idle');
    });
  });
}
