/**
 * Claude's 2026 layouts (research/providers-live-2026.md, "Claude"): what the simulated
 * pages render, used as a person would; then ChatBridge driving them.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import { simulatedAnswer } from '../../../agents/simulator/answer.js';
import { SIM_SITES } from '../../../agents/simulator/site-config.js';
import { startE2E, type E2E } from '../../support/e2e.js';
import { openSimPage, typeAndSend, type SimPage } from '../../support/sim-page.js';
import { until } from '../../support/until.js';
import { providerSuite } from '../provider-suite.js';
import { describeBeside, inOrder } from '../../support/beside.js';
import { jobIdWhere } from '../../support/store.js';
import { giveBackTestBrowser, takeTestBrowser } from '../../support/test-browser.js';

const COMPOSER = '[data-testid="chat-input"]';

describeBeside('simulated Claude pages', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await takeTestBrowser();
  });
  afterAll(async () => giveBackTestBrowser(browser));

  /** Sends `count` prompts in one conversation, each once the previous answer finished. */
  const converse = async (sp: SimPage, count: number) => {
    for (let i = 1; i <= count; i++) {
      await typeAndSend(sp, COMPOSER, `Prompt ${i} [[sim:ms=100]]`);
      await sp.page.waitForFunction((n) => {
        const newest = Array.from(document.querySelectorAll('[data-is-streaming]')).at(-1);
        return newest?.getAttribute('data-is-streaming') === 'false' && newest.textContent!.includes(`turn ${n}`);
      }, i);
    }
  };

  it('transcript: the newest six rows stay mounted, numbered among all of them', async ({ expect }) => {
    const sp = await openSimPage(browser, 'claude', { look: { layout: 'transcript' } });
    try {
      await converse(sp, 4);
      const rows = await sp.page.$$eval('[data-testid="transcript-list"] > [data-testid="transcript-row"]', (all) =>
        all.map((r) => [r.getAttribute('data-perf-row'), r.getAttribute('data-index'), r.getAttribute('data-last-message'), r.firstElementChild!.getAttribute('aria-label')]),
      );
      expect(rows).toEqual([
        ['human', '2', 'false', 'Message 3 of 8'],
        ['assistant', '3', 'false', 'Message 4 of 8'],
        ['human', '4', 'false', 'Message 5 of 8'],
        ['assistant', '5', 'false', 'Message 6 of 8'],
        ['human', '6', 'false', 'Message 7 of 8'],
        ['assistant', '7', 'true', 'Message 8 of 8'],
      ]);
      expect(await sp.page.$$eval('[data-perf-row="assistant"]', (all) => all.map((r) => r.getAttribute('data-perf-row-streaming')))).toEqual(['false', 'false', 'false']);
      // A conversation opened afresh mounts only its newest rows too.
      await sp.page.reload();
      expect(await sp.page.locator('[data-testid="transcript-row"]').count()).toBe(6);
      expect(await sp.page.locator('[data-testid="transcript-row"]').first().getAttribute('data-index')).toBe('2');
    } finally {
      await sp.close();
    }
  });

  it('rs-rows: [data-rs-index] rows in the "chat messages" article, told apart only by their contents', async ({ expect }) => {
    const sp = await openSimPage(browser, 'claude', { look: { layout: 'rs-rows' } });
    try {
      await converse(sp, 4);
      const rows = await sp.page.$$eval('[role="article"][aria-label="chat messages"] > [data-rs-index]', (all) =>
        all.map((r) => [
          r.getAttribute('data-rs-index'),
          r.getAttribute('data-last-message'),
          r.querySelector(':scope > [role="article"]')!.getAttribute('aria-label'),
          r.querySelector('h2.sr-only')!.textContent!.replace(/:.*/s, ':'),
        ]),
      );
      expect(rows).toEqual([
        ['2', 'false', 'Message 3 of 8', 'You said:'],
        ['3', 'false', 'Message 4 of 8', 'Claude responded:'],
        ['4', 'false', 'Message 5 of 8', 'You said:'],
        ['5', 'false', 'Message 6 of 8', 'Claude responded:'],
        ['6', 'false', 'Message 7 of 8', 'You said:'],
        ['7', 'true', 'Message 8 of 8', 'Claude responded:'],
      ]);
      expect(await sp.page.locator('[data-testid="transcript-row"], [data-perf-row], [data-perf-row-streaming], [data-index]').count()).toBe(0);
      expect(await sp.page.locator('[data-testid="virtual-message-list"] [data-rs-index] .font-claude-response').count()).toBe(3);
    } finally {
      await sp.close();
    }
  });

  for (const layout of SIM_SITES.claude.layouts) {
    it(`${layout}: the usage limit replaces the editor with the stand-in notice, also on a page opened while limited`, async ({ expect }) => {
      const sp = await openSimPage(browser, 'claude', { look: { layout } });
      try {
        await converse(sp, 1);
        await typeAndSend(sp, COMPOSER, 'One more [[sim:limit]]');
        const standIn = sp.page.locator('section[data-composer-stand-in]');
        await standIn.waitFor();
        expect(await standIn.textContent()).toMatch(/^Your free messages return at \d{1,2}:\d{2} [AP]M\.Upgrade$/);
        const gone = () => sp.page.locator(`${COMPOSER}, [contenteditable], [data-testid="chat-input-send"], [data-testid="chat-input-stop"]`).count();
        expect(await gone()).toBe(0);
        await sp.page.goto(new URL(SIM_SITES.claude.paths.newChat, sp.sim.url).href);
        expect(await standIn.textContent()).toMatch(/^Your free messages return at \d{1,2}:\d{2} [AP]M\./);
        expect(await gone()).toBe(0);
      } finally {
        await sp.close();
      }
    });
  }
});

for (const layout of SIM_SITES.claude.layouts.slice(1)) providerSuite('claude', { layout }, 'core');

describeBeside('ChatBridge on the 2026 Claude page', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E('claude', 2);
  }, 60_000);
  afterAll(async () => e?.stop());

  const ask = (body: Record<string, unknown>) => e.api('POST', '/v1/completions', { body: { provider: 'claude', ...body } });

  inOrder('continues a long conversation after its old rows were unmounted, each answer the right one', async ({ expect }) => {
    const first = await ask({ prompt: 'Long 1' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    for (let turn = 2; turn <= 5; turn++) {
      const r = await ask({ prompt: `Long ${turn}`, mode: 'continue', conversation_ref: first.body.conversation_ref });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.response).toBe(simulatedAnswer('Claude', 'claude', `Long ${turn}`, turn));
    }
    // The page really had only the newest rows: 6 of the conversation's 10.
    const agent = e.browserAgents.find((a) => a.id === first.body.agent_id)!;
    const page = await agent.page()!.context().newPage();
    await page.goto((await e.driver.conversation(first.body.conversation_ref))!.address);
    expect(await page.locator('[data-testid="transcript-row"]').count()).toBe(6);
    expect(await page.locator('[data-testid="transcript-row"]').first().getAttribute('data-index')).toBe('4');
    await page.close();
  });

  // Last: the limited agent stays cooled down.
  inOrder('a page that opens at the usage limit: the attempt fails at once as a rate limit, the agent cools down until the time on the notice, a job pinned to it waits', async ({ expect }) => {
    const [limited, other] = e.browserAgents as [(typeof e.browserAgents)[0], (typeof e.browserAgents)[0]];
    // Its person uses up the allowance in another tab of the agent's browser.
    const tab = await limited.page()!.context().newPage();
    await tab.goto(new URL(SIM_SITES.claude.paths.newChat, e.sim.url).href);
    await tab.click(COMPOSER);
    await tab.keyboard.insertText('Spent [[sim:limit]]');
    await tab.keyboard.press('Enter');
    const notice = (await tab.locator('section[data-composer-stand-in]').textContent())!;
    const at = /\d{1,2}:\d{2} [AP]M/.exec(notice)![0];
    await tab.close();

    const waiting = ask({ prompt: 'Pinned', agent_id: limited.id });
    const id = await until(() => jobIdWhere(e.driver, (prompt) => prompt === 'Pinned'));
    const attempt = await until(async () => (await e.driver.attempts(id)).find((a) => a.ended_at !== null), 20_000, 'the attempt');
    expect(attempt).toMatchObject({ agent_id: limited.id, outcome: 'failed', error_code: 'PROVIDER_RATE_LIMITED' });
    // Told by the page as it opened, not by a readiness wait running out.
    expect(attempt.ended_at! - attempt.started_at).toBeLessThan(10_000);
    const status = (await e.api('GET', '/v1/status')).body;
    const cooled = status.devices[0].agents.find((a: { id: string }) => a.id === limited.id);
    expect(new Date(cooled.cooldown_until).toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' })).toBe(at);
    expect(Date.parse(cooled.cooldown_until)).toBeGreaterThan(Date.now() + 15 * 60_000);
    expect((await e.driver.job(id))!.status).toBe('queued');
    // The other agent takes the next job.
    const next = await ask({ prompt: 'Elsewhere' });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.agent_id).toBe(other.id);
    // Its caller was not held to learn what the service knew: the agent rests past the hold.
    const told = await waiting;
    expect(told.status).toBe(504);
    expect(told.body.error.message).toMatch(/resting/);
    expect((await e.driver.job(id))!.status).toBe('queued');
  }, 40_000);
});
