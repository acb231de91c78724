/**
 * A long-thinking variant's attempt that reaches its timeout, through the service, in real
 * Chromium against the simulated ChatGPT (decisions.md, "Models and modes"): the page is left
 * answering, and the conversation reopened once collects an answer that finished after the
 * cut; one that shows no finished answer ends the job TIMEOUT. The prompt is sent once either
 * way. The attempt's 5 s and the collection's two minutes are skipped on the service's clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeControl } from '../../agents/runtime/runtime-control.js';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { COLLECT_MS } from '../../main/queue/attempts.js';
import { startE2E, type E2E } from '../support/e2e.js';
import { SkippingClock } from '../support/skipping-clock.js';
import { until } from '../support/until.js';

describe('a long-thinking variant whose attempt reaches its timeout', () => {
  let e: E2E;
  const clock = new SkippingClock();
  const reopened: string[] = [];
  beforeAll(async () => {
    e = await startE2E('chatgpt', 1, { layout: 'section' }, { clock });
    // As serve attaches them: the service knows the packs' variants, pro's long attempt limit among them.
    e.service.attachAgents(new RuntimeControl(e.runtime));
    e.browserAgents[0]!.onNote((n) => {
      if (n.message.startsWith('reopening')) reopened.push(n.message);
    });
  }, 60_000);
  afterAll(async () => e?.stop());

  /** Submits `prompt` under pro with a 5 s attempt, and cuts the attempt once the page has given the conversation its address. */
  async function cutAfterSending(prompt: string, more: Record<string, unknown> = {}): Promise<string> {
    const r = await e.api('POST', '/v1/completions', { body: { provider: 'chatgpt', variant: 'pro', prompt, timeout_ms: 5_000, wait: false, ...more } });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    await until(() => e.sim.log.sends.some((s) => s.prompt === prompt), 30_000, 'the prompt sent');
    await until(() => /\/c\/[0-9a-f-]{36}$/.test(e.browserAgents[0]!.page()!.url()), 10_000, "the conversation's address");
    clock.skip(5_000);
    return r.body.id as string;
  }
  const settled = async (id: string) =>
    until(async () => {
      const job = (await e.api('GET', `/v1/completions/${id}`)).body;
      return ['succeeded', 'failed'].includes(job.status) && job;
    }, 30_000, 'the job settled');

  let conversationRef = '';

  it('collects the answer that finished after the cut by reopening the conversation, sent once, the page never stopped', async () => {
    const prompt = 'Think for a while [[sim:ms=4000]]';
    const id = await cutAfterSending(prompt);
    const job = await settled(id);
    expect(job).toMatchObject({ status: 'succeeded', attempts: 1, variant: 'pro', model_used: 'gpt-5-5-pro' });
    expect(job.response).toBe(simulatedAnswer('ChatGPT', 'chatgpt', prompt, 1));
    conversationRef = job.conversation_ref;
    expect(e.sim.log.sends.filter((s) => s.prompt === prompt)).toHaveLength(1);
    // Nobody pressed Stop, and the answer showed finished only on the page reopened.
    expect(e.sim.log.stops).toEqual([]);
    expect(e.sim.log.finishes).toHaveLength(1);
    expect(reopened).toHaveLength(1);
    expect((await e.driver.attempts(id)).map((a) => [a.outcome, a.detail])).toEqual([
      ['succeeded', "The answer finished after the attempt's 5 s: collected by reopening its conversation, nothing sent again. Finished on ChatGPT's own finished signal."],
    ]);
  }, 60_000);

  it("collects the answer after those the conversation had before, not the last one finished as it reopens", async () => {
    const prompt = 'And a follow-up [[sim:ms=3000]]';
    const id = await cutAfterSending(prompt, { mode: 'continue', conversation_ref: conversationRef });
    const job = await settled(id);
    expect(job).toMatchObject({ status: 'succeeded', attempts: 1, conversation_ref: conversationRef });
    expect(job.response).toBe(simulatedAnswer('ChatGPT', 'chatgpt', prompt, 2));
    expect(e.sim.log.sends.filter((s) => s.prompt === prompt)).toHaveLength(1);
  }, 60_000);

  it('ends TIMEOUT, sent once, when the reopened conversation shows no finished answer within the collection’s time', async () => {
    const prompt = 'Never finishes [[sim:hang]]';
    const id = await cutAfterSending(prompt);
    await until(() => reopened.length === 3, 30_000, 'the conversation reopened');
    clock.skip(COLLECT_MS);
    const job = await settled(id);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'TIMEOUT' } });
    expect(job.error.message).toMatch(/was reopened after the attempt's 5 s: the page showed no finished answer 120 s after reopening$/);
    expect(e.sim.log.sends.filter((s) => s.prompt === prompt)).toHaveLength(1);
    expect((await e.driver.attempts(id)).map((a) => [a.outcome, a.error_code])).toEqual([['timed_out', 'ANSWER_NOT_COLLECTED']]);
    // The job is over: the answer is stopped, and the agent takes the next job.
    await until(() => e.sim.log.stops.length === 1, 10_000, 'the Stop press');
    await until(() => e.browserAgents[0]!.readiness() === 'idle' && !e.service.scheduler.isRunningOn(e.browserAgents[0]!.id), 15_000, 'the agent free again');
  }, 60_000);
});
