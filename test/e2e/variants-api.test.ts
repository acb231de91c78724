/**
 * A variant through the HTTP API, in real Chromium against the simulated ChatGPT (issue 21):
 * the service knows the variants from the agents' packs (attached as `serve` attaches them),
 * a job under a variant the account offers answers with the model the page names, and one
 * the account lacks ends 502 VARIANT_UNAVAILABLE naming what the picker offered, with
 * nothing sent.
 */
import { describe, expect, it } from 'vitest';
import { RuntimeControl } from '../../agents/runtime/runtime-control.js';
import { startE2E } from '../support/e2e.js';

describe('a variant through the API', () => {
  it('answers with model_used under one the account offers, and ends 502 VARIANT_UNAVAILABLE with zero sends under one it lacks', async () => {
    const e = await startE2E('chatgpt', 1, { layout: 'section', variants: { lacks: ['pro'] } });
    try {
      e.service.attachAgents(new RuntimeControl(e.runtime));
      const models = (await e.api('GET', '/v1/models')).body.data.map((m: { id: string }) => m.id);
      expect(models).toEqual(['service/auto', 'service/chatgpt', 'service/chatgpt/instant', 'service/chatgpt/thinking', 'service/chatgpt/pro']);

      const answered = await e.api('POST', '/v1/completions', { body: { prompt: 'Under thinking', provider: 'chatgpt', variant: 'thinking' } });
      expect(answered.status, JSON.stringify(answered.body)).toBe(200);
      expect(answered.body).toMatchObject({ status: 'succeeded', variant: 'thinking', model_used: 'gpt-5-5-thinking' });
      expect(e.sim.log.sends).toHaveLength(1);

      // The dashboard's Check site tells routing what the account offers.
      const agentId = e.browserAgents[0]!.id;
      expect((await e.service.admin.agents.checkSite(agentId, false)).variants).toEqual(['instant', 'thinking']);
      expect(e.service.scheduler.offers.mayOffer(agentId, 'pro')).toBe(false);
      expect(e.service.scheduler.offers.mayOffer(agentId, 'thinking')).toBe(true);

      // Known to lack it, the only agent still tries (its page may have changed), and refuses with nothing sent.
      const refused = await e.api('POST', '/v1/completions', { body: { prompt: 'Under pro', provider: 'chatgpt', variant: 'pro' } });
      expect(refused.status).toBe(502);
      expect(refused.body.error.code).toBe('VARIANT_UNAVAILABLE');
      expect(refused.body.error.message).toContain('("pro")');
      expect(refused.body.error.message).toContain('Variants offered: instant, thinking.');
      expect(e.sim.log.sends).toHaveLength(1);
      // The account is fine: the agent is ready for the next job, which the picker's default answers.
      expect(e.driver.agents.state(agentId)).toBe('idle');
      const plain = await e.api('POST', '/v1/completions', { body: { prompt: 'As it stands', provider: 'chatgpt' } });
      expect(plain.body).toMatchObject({ status: 'succeeded', variant: null });
    } finally {
      await e.stop();
    }
  }, 120_000);
});
