/**
 * A limit is a limit only where the page says the account hit it (issue 18): a plan's upsell
 * over every page, in a limit's words ("higher usage limits", "unlimited searches") and where
 * limit notices sit (an alert, a banner), neither rests the agent nor stops the job; beside
 * it, a real limit notice still does. Every provider, real Chromium, one agent each.
 */
import { afterAll, beforeAll } from 'vitest';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { PROVIDERS } from '../../main/core/providers.js';
import { startE2E, type E2E } from '../support/e2e.js';
import { describeBeside, inOrder } from '../support/beside.js';

for (const provider of PROVIDERS) {
  const name = SIM_SITES[provider].name;

  describeBeside(`${name} under a plan's upsell banner`, () => {
    let e: E2E;
    beforeAll(async () => {
      e = await startE2E(provider, 1, { upsell: true });
    }, 60_000);
    afterAll(async () => e?.stop());

    inOrder('answers, the agent not resting; a real limit notice beside the banner still rests it', async ({ expect }) => {
      const prompt = 'Under the upsell';
      const r = await e.api('POST', '/v1/completions', { body: { provider, prompt } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.response).toBe(simulatedAnswer(name, provider, prompt, 1));
      expect(r.body.attempts).toBe(1);
      expect(e.driver.agents.state(r.body.agent_id)).not.toBe('resting');

      const limited = await e.api('POST', '/v1/completions', { body: { provider, prompt: 'Limited [[sim:limit]]', timeout_ms: 30_000 } });
      const attempts = await e.driver.attempts(limited.body.id ?? limited.body.error.details.job_id);
      expect(attempts[0]).toMatchObject({ error_code: 'PROVIDER_RATE_LIMITED' });
      expect(e.driver.agents.state(r.body.agent_id)).toBe('resting');
    }, 60_000);
  });
}
