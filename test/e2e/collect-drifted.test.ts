/**
 * Collecting an answer where no cue finds the finished signal nor Copy (the `no-finish` and
 * `no-copy` drifts), through the agent in real Chromium against the simulated ChatGPT: the
 * answer was done before its conversation reopened, so its controls were already there when
 * the watch first looked. They are taken for the end once they held for `lostSignalMs`
 * (page-helpers/watch.ts), never at once and never not at all; nothing is sent again.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBeside } from '../support/beside.js';
import { startE2E, type E2E } from '../support/e2e.js';
import { until } from '../support/until.js';

const LIMITS = { settleMs: 400, lostSignalMs: 1_500 };

describeBeside('an answer collected on a page whose finished signal no cue finds', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E('chatgpt', 1, { drift: ['no-finish', 'no-copy'] }, { limits: LIMITS });
  }, 60_000);
  afterAll(async () => e?.stop());

  it('is collected once its controls, there when the conversation reopened, held still for lostSignalMs', async () => {
    const prompt = 'Done before the reopening [[sim:ms=300]]';
    const r = await e.api('POST', '/v1/completions', { body: { provider: 'chatgpt', prompt } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const conversation = (await e.service.store.conversation(r.body.conversation_ref))!.address;
    const agent = e.browserAgents[0]!;
    await until(() => agent.readiness() === 'idle' && !e.service.scheduler.isRunningOn(agent.id), 15_000, 'the agent free again');

    const started = Date.now();
    const collected = await agent.collect({ prompt, sent: { conversation, turnsBefore: 0 }, signal: AbortSignal.timeout(20_000), label: 'collection' });
    expect(collected.text).toBe(r.body.response);
    expect(collected.finish).toMatch(/^No cue finds ChatGPT's finished signal: the answer was taken as finished once \d+ of its own controls?(?: \([^)]*\))?, there when the watch began, held with the text still for \d+\.\d s/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(LIMITS.lostSignalMs);
    expect(e.sim.log.sends.filter((s) => s.prompt === prompt)).toHaveLength(1);
  }, 60_000);
});
