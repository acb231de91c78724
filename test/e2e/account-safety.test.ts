/**
 * A user's account matters more than a job (issue 18 §3, §4), in real Chromium against the
 * simulated ChatGPT: the account-wide "Too many requests" modal rests the agent and is never
 * closed and sent through; "Suspicious activity detected" sets the agent aside until a person
 * checks it, with nothing closed or sent from it; a cookie banner over the composer is
 * answered with its least permissive choice, once; a product announcement is closed by its
 * close button, never its "Get started"; a long paste the composer turns into a file is not
 * sent twice.
 */
import { it, type TestContext } from 'vitest';
import type { SimLook } from '../../agents/simulator/site-server.js';
import type { Provider } from '../../main/core/providers.js';
import { describeBeside } from '../support/beside.js';
import { startE2E, type E2E, type E2EOptions } from '../support/e2e.js';
import { SkippingClock } from '../support/skipping-clock.js';
import { until } from '../support/until.js';
import { jobIdWhere } from '../support/store.js';

/**
 * `count` agents on the simulated `provider` in `look`, a service of their own stopped when
 * the test ends: two where a job must go on elsewhere, one where the page alone is the test.
 */
async function agents(
  count: 1 | 2,
  onTestFinished: TestContext['onTestFinished'],
  look: SimLook = {},
  provider: Provider = 'chatgpt',
  options: E2EOptions = {},
): Promise<{ e: E2E; notes: () => string[] }> {
  const e = await startE2E(provider, count, look, options);
  onTestFinished(() => e.stop());
  // The agents' notes as the service's log has them (from their first page on).
  return { e, notes: () => e.service.log.recent().map((entry) => entry.message) };
}

const ask = (t: E2E, prompt: string) => t.api('POST', '/v1/completions', { body: { prompt, timeout_ms: 60_000 } });

describeBeside('the rate-limit modal', () => {
  it('rests the agent without closing the modal, and the job is answered by another agent', async ({ expect, onTestFinished }) => {
    const { e } = await agents(2, onTestFinished);
    // When the agent went to rest, by the pool's own change events.
    const restedAt = new Map<string, number>();
    e.driver.agents.onChange(() => {
      for (const a of e.browserAgents) if (!restedAt.has(a.id) && e.driver.agents.state(a.id) === 'resting') restedAt.set(a.id, Date.now());
    });
    const prompt = 'Throttled [[sim:rate-limit-modal]]';
    const r = await ask(e, prompt);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const attempts = await e.driver.attempts(r.body.id);
    expect(attempts.map((a) => a.error_code)).toEqual(['PROVIDER_RATE_LIMITED', null]);
    const limited = attempts[0]!.agent_id;
    expect(r.body.agent_id).not.toBe(limited);
    expect(e.driver.agents.state(limited)).toBe('resting');
    // The modal gives no time: the rest is the scheduler's hour.
    expect(e.driver.agents.cooldownUntil(limited)).toBeGreaterThan(Date.now() + 50 * 60_000);
    // Sent once by the limited agent, never again from it; the modal was never closed.
    const sends = e.sim.log.sends.filter((s) => s.prompt === prompt);
    expect(sends.map((s) => s.kind)).toEqual(['rate-limit', 'answer']);
    expect(e.sim.log.dismissals).toEqual([]);
    const restMs = restedAt.get(limited)! - sends[0]!.at;
    console.log(`rate-limit modal -> agent resting: ${restMs} ms; job ${r.status} after ${r.body.attempts} attempts (${attempts.map((a) => a.error_code ?? 'succeeded').join(', ')})`);
    expect(restMs).toBeGreaterThan(0);
  }, 90_000);

  it('a rested agent that opens its page on the modal again stays resting; its next look does not close it', async ({ expect, onTestFinished }) => {
    const { e } = await agents(2, onTestFinished);
    const r = await ask(e, 'Throttled again [[sim:rate-limit-modal]]');
    const limited = (await e.driver.attempts(r.body.id))[0]!.agent_id;
    const agent = e.browserAgents.find((a) => a.id === limited)!;
    // A look at its page (as the pool's after the rest, or a person's) finds the modal on load.
    expect(await agent.recheck()).toBe(false);
    expect(e.driver.agents.state(limited)).toBe('resting');
    expect(e.sim.log.dismissals).toEqual([]);
  }, 90_000);
});

describeBeside('a limit or a lock the pack does not know', () => {
  it('is read by its words on Claude: the modal rests the agent, the lock sets it aside, neither is closed', async ({ expect, onTestFinished }) => {
    // The service's clock: the job left without an agent waits to its deadline, skipped rather than sat out.
    const clock = new SkippingClock();
    const { e } = await agents(2, onTestFinished, {}, 'claude', { clock });
    const limited = await ask(e, 'Throttled [[sim:rate-limit-modal]]');
    expect(limited.status, JSON.stringify(limited.body)).toBe(200);
    const first = (await e.driver.attempts(limited.body.id))[0]!;
    expect(first.error_code).toBe('PROVIDER_RATE_LIMITED');
    expect(first.detail).toMatch(/Too many requests/);
    expect(e.driver.agents.state(first.agent_id)).toBe('resting');

    // The other agent takes the next job, and meets the lock: no agent is left, so the job waits to its deadline.
    const waiting = e.api('POST', '/v1/completions', { body: { prompt: 'Watched [[sim:suspicious]]', deadline_ms: 60_000 } });
    const id = await until(() => jobIdWhere(e.driver, (prompt) => prompt === 'Watched [[sim:suspicious]]'));
    const lockedAttempt = await until(async () => (await e.driver.attempts(id)).find((a) => a.outcome !== null), 30_000, 'the locked attempt');
    expect(lockedAttempt.error_code).toBe('CHALLENGE');
    const locked = e.browserAgents.find((a) => a.id === lockedAttempt.agent_id)!;
    expect(locked.detail()).toMatch(/^account locked: Claude says the account needs its owner/);
    expect((await e.driver.job(id))!.status).toBe('queued');
    clock.skip(60_000);
    const watched = await waiting;
    expect(watched.status, JSON.stringify(watched.body)).toBe(504);
    expect(watched.body.error.details.job_id).toBe(id);
    expect(e.sim.log.dismissals).toEqual([]);
  }, 120_000);
});

describeBeside('"Suspicious activity detected"', () => {
  it('sets the agent aside until a person checks it: nothing closed, nothing more sent from it', async ({ expect, onTestFinished }) => {
    const { e } = await agents(2, onTestFinished);
    const prompt = 'Watched [[sim:suspicious]]';
    const r = await ask(e, prompt);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const attempts = await e.driver.attempts(r.body.id);
    expect(attempts.map((a) => a.error_code)).toEqual(['CHALLENGE', null]);
    const locked = e.browserAgents.find((a) => a.id === attempts[0]!.agent_id)!;
    expect(locked.readiness()).toBe('error');
    expect(locked.detail()).toMatch(/^account locked: ChatGPT says the account needs its owner: ".*Suspicious activity detected/);
    expect(e.driver.agents.nextCheckAt(locked.id)).toBeNull();
    expect(e.sim.log.dismissals).toEqual([]);

    // More jobs all go to the other agent.
    for (let i = 0; i < 2; i++) expect((await ask(e, `After the lock ${i}`)).body.agent_id).not.toBe(locked.id);
    expect(e.sim.log.sends.filter((s) => s.kind === 'lock')).toHaveLength(1);

    // Still locked, a person's check leaves it aside; once they secured the account, it is ready.
    expect(await locked.recheck()).toBe(false);
    expect(locked.readiness()).toBe('error');
    await fetch(`${e.sim.url}/__sim/unlock`, { method: 'POST' });
    expect(await locked.recheck()).toBe(true);
    expect(locked.readiness()).toBe('idle');
    expect(e.sim.log.dismissals).toEqual([]);
  }, 120_000);
});

describeBeside('a cookie banner over the composer', () => {
  it('is answered with "Reject non-essential" once, logged, and the job goes on', async ({ expect, onTestFinished }) => {
    const { e, notes } = await agents(1, onTestFinished, { consent: true });
    const r = await ask(e, 'Past the banner');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.response).toContain('Past the banner');
    // The agent's profile answered it once, on its first page: the job's page no longer showed it.
    expect(e.sim.log.consents).toEqual(['reject']);
    expect(notes().filter((n) => /consent banner/.test(n))).toEqual(['ChatGPT 1: answered a consent banner with its least permissive choice, "Reject non-essential".']);
  }, 90_000);
});

describeBeside("ChatGPT's product announcement (the beacon modal)", () => {
  it('is closed (Escape, else its close button), never with "Get started", and the job goes on', async ({ expect, onTestFinished }) => {
    const { e } = await agents(1, onTestFinished, { beacon: true });
    const r = await ask(e, 'Past the announcement');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.response).toContain('Past the announcement');
    // The agent's page showed it once, and the agent closed it without opting the account in.
    expect(e.sim.log.dismissals).toHaveLength(1);
    for (const d of e.sim.log.dismissals) expect(`${d.kind}: ${d.button}`).toMatch(/^beacon: (?:Escape|Close)$/);
    expect(e.sim.log.sends.filter((s) => s.prompt === 'Past the announcement')).toHaveLength(1);
  }, 90_000);
});

describeBeside('a long paste the composer makes a file', () => {
  it('is sent once, as text: the file removed, the prompt pasted again in pieces, byte for byte', async ({ expect, onTestFinished }) => {
    const { e, notes } = await agents(1, onTestFinished, { pasteToFileAt: 2_000 });
    const prompt = `Long one\n\n${'line\twith a tab and  two spaces\n'.repeat(120)}end`;
    const r = await ask(e, prompt);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const sends = e.sim.log.sends.filter((s) => s.prompt.startsWith('Long one'));
    expect(sends).toHaveLength(1);
    expect(sends[0]!.prompt).toBe(prompt);
    expect(sends[0]!.attachment).toBeUndefined();
    expect(notes().filter((n) => /pasted prompt a file/.test(n))).toEqual([
      expect.stringMatching(/^ChatGPT \d: ChatGPT made the pasted prompt a file; removed it and pasted the prompt in 2 pieces instead\.$/),
    ]);
    expect(r.body.response).toContain(prompt);
  }, 90_000);
});

describeBeside('"Choose an account to continue"', () => {
  it('is answered with one click on the saved account, logged; the agent never counts as logged out', async ({ expect, onTestFinished }) => {
    const { e, notes } = await agents(1, onTestFinished);
    // The answer comes as ever; the page the agent opens next is the picker (a cookie refresh).
    const first = await ask(e, 'Before the picker [[sim:account-picker]]');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const agent = e.browserAgents.find((a) => a.id === first.body.agent_id)!;
    await agent.recheck();
    expect(e.sim.log.picks).toBe(1);
    expect(agent.readiness()).toBe('idle');
    expect(notes().filter((n) => /Choose an account/.test(n))).toEqual([
      `${first.body.agent_name}: chose the saved account "Simulated Agent agent@example.test" on ChatGPT's "Choose an account to continue" page.`,
    ]);
    expect(notes().some((n) => /needs_login/.test(n) && n.startsWith(`${first.body.agent_name}: idle`))).toBe(false);
  }, 90_000);
});
