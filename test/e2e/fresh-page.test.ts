/**
 * A login wall or a lock that the working page shows beside its conversation, in no dialog
 * that blocks the page, counts only once a fresh page of the site shows one too
 * (agents/providers/fresh-page.ts): a fresh page in a tab of its own, nothing sent from it.
 * A logged-out agent is looked at again on its own, a page load with nothing sent, and takes
 * jobs again once its session is back.
 */
import type { Page } from 'playwright-core';
import { it, type TestContext } from 'vitest';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import type { SimLook } from '../../agents/simulator/site-server.js';
import type { Provider } from '../../main/core/providers.js';
import { LOGGED_OUT_DELAYS_MS } from '../../main/queue/recheck-schedule.js';
import { describeBeside } from '../support/beside.js';
import { startE2E, type E2E, type E2EOptions } from '../support/e2e.js';
import { SkippingClock } from '../support/skipping-clock.js';
import { until } from '../support/until.js';

/** One agent on `provider`, stopped when the test ends; the fresh pages its browser opened, by address. */
async function oneAgent(provider: Provider, onTestFinished: TestContext['onTestFinished'], look: SimLook = {}, options: E2EOptions = {}) {
  const e = await startE2E(provider, 1, look, options);
  onTestFinished(() => e.stop());
  const agent = e.browserAgents[0]!;
  const freshPages: string[] = [];
  agent
    .page()!
    .context()
    .on('page', (tab: Page) =>
      tab.on('framenavigated', (frame) => {
        if (frame === tab.mainFrame() && frame.url().startsWith('http')) freshPages.push(new URL(frame.url()).pathname);
      }),
    );
  const notes = () => e.service.log.recent().map((entry) => entry.message);
  return { e, agent, freshPages, notes };
}

const ask = (e: E2E, prompt: string, extra: Record<string, unknown> = {}) => e.api('POST', '/v1/completions', { body: { prompt, timeout_ms: 60_000, ...extra } });

/**
 * Perplexity's question is the thread's h1: a pack that no longer knows the person's turns
 * (a redesign) reads a question that opens with "Suspicious activity detected" as a lock.
 */
const BLIND_TO_PROMPTS = { roles: { userTurn: [{ kind: 'structure' as const, css: '[data-no-element-has-this]', note: 'the site changed' }] } };
const PROMPT = 'Suspicious activity detected\nWhat does this heading mean?';

describeBeside('a lock beside the conversation that a fresh page does not show', () => {
  it('is taken for part of the page, and the answer is read whole', async ({ expect, onTestFinished }) => {
    const { e, agent, freshPages, notes } = await oneAgent('perplexity', onTestFinished);
    e.override(BLIND_TO_PROMPTS);
    const r = await ask(e, PROMPT);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.response).toBe(simulatedAnswer('Perplexity', 'perplexity', PROMPT, 1));
    expect(r.body.attempts).toBe(1);
    expect(e.driver.agents.state(agent.id)).toBe('idle');
    // One fresh page looked at, the new chat, and nothing sent but the prompt.
    expect(freshPages).toEqual(['/']);
    expect(notes().filter((n) => /a fresh page of the site shows none/.test(n))).toHaveLength(1);
    expect(e.sim.log.sends.map((s) => s.prompt)).toEqual([PROMPT]);
  }, 90_000);

  it('stands as seen where no second tab can be opened (the desktop’s embedded view)', async ({ expect, onTestFinished }) => {
    const { e, agent, notes } = await oneAgent('perplexity', onTestFinished);
    e.override(BLIND_TO_PROMPTS);
    agent.page()!.context().newPage = () => Promise.reject(new Error('Target.createTarget is not available on an embedded agent view'));
    const r = await ask(e, PROMPT, { wait: false });
    const attempt = await until(async () => (await e.driver.attempts(r.body.id)).find((a) => a.outcome !== null), 30_000, 'the attempt');
    expect(attempt.error_code).toBe('CHALLENGE');
    expect(agent.awaitsPerson()).toBe(true);
    expect(notes().some((n) => /no fresh page could be looked at to confirm it: taken as shown/.test(n))).toBe(true);
    await e.api('DELETE', `/v1/completions/${r.body.id}`);
  }, 90_000);
});

describeBeside('a login wall beside the conversation that a fresh page shows too', () => {
  it('sets the agent aside as logged out; looked at again on its own, with nothing sent, it takes jobs once its session is back', async ({ expect, onTestFinished }) => {
    const clock = new SkippingClock();
    const { e, agent, freshPages } = await oneAgent('chatgpt', onTestFinished, {}, { clock });
    const r = await ask(e, 'Logged out [[sim:logout]]', { wait: false });
    const attempt = await until(async () => (await e.driver.attempts(r.body.id)).find((a) => a.outcome !== null), 30_000, 'the attempt');
    expect(attempt.error_code).toBe('LOGIN_REQUIRED');
    // With no other agent the job would wait for this one: it is not what this test is about.
    await e.api('DELETE', `/v1/completions/${r.body.id}`);
    expect(agent.readiness()).toBe('needs_login');
    // The wall showed beside the prompt: the new chat in a tab of its own confirmed it (the login page).
    expect(freshPages).toEqual(['/auth/login']);

    // Its first look, a minute on: still logged out, and nothing sent.
    const sends = e.sim.log.sends.length;
    const firstLook = e.driver.agents.nextCheckAt(agent.id)!;
    expect(firstLook - clock.now()).toBeGreaterThan(LOGGED_OUT_DELAYS_MS[0]! - 5_000);
    clock.skip(LOGGED_OUT_DELAYS_MS[0]!);
    await until(() => (e.driver.agents.nextCheckAt(agent.id) ?? 0) > firstLook, 30_000, 'the first look');
    expect(agent.readiness()).toBe('needs_login');
    expect(e.sim.log.sends.length).toBe(sends);
    expect(e.driver.agents.nextCheckAt(agent.id)! - clock.now()).toBeGreaterThan(LOGGED_OUT_DELAYS_MS[1]! - 5_000);

    // The person logged in elsewhere in this profile: the next look finds the chat, and the agent takes jobs again.
    await agent.page()!.context().addCookies([e.sim.session()]);
    clock.skip(LOGGED_OUT_DELAYS_MS[1]!);
    await until(() => agent.readiness() === 'idle', 30_000, 'the second look');
    const next = await ask(e, 'Back again');
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.agent_id).toBe(agent.id);
  }, 120_000);
});
