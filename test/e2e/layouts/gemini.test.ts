/**
 * Gemini in 2026 (research/providers-live-2026.md, "Gemini"): the anonymous composer a
 * logged-out visitor gets, and the stock Quill 1 layout; what the simulated pages do, used
 * as a person would; then ChatBridge driving them.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import { PROVIDER_SITES } from '../../../agents/providers/index.js';
import { PAGE_HELPERS_SCRIPT } from '../../../agents/providers/page-helpers.js';
import { simulatedAnswer } from '../../../agents/simulator/answer.js';
import { SIM_SITES } from '../../../agents/simulator/site-config.js';
import { startE2E, type E2E } from '../../support/e2e.js';
import { openSimPage, typeAndSend, type SimPage } from '../../support/sim-page.js';
import { until } from '../../support/until.js';
import { providerSuite } from '../provider-suite.js';
import { describeBeside, inOrder } from '../../support/beside.js';
import { jobIdWhere } from '../../support/store.js';
import { giveBackTestBrowser, takeTestBrowser } from '../../support/test-browser.js';

const COMPOSER = 'rich-textarea div.ql-editor[contenteditable="true"][aria-label="Enter a prompt for Gemini"]';
const PROMPT = 'Two lines\n\n\tand a tab — ünïcödé ✓';

describeBeside('simulated Gemini pages', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await takeTestBrowser();
  });
  afterAll(async () => giveBackTestBrowser(browser));

  /** Dispatches a synthetic paste of `text` on the composer, as a script can; true if the editor took it. */
  const syntheticPaste = (sp: SimPage, text: string) =>
    sp.page.locator(COMPOSER).evaluate(async (editor, t) => {
      (editor as HTMLElement).focus();
      const data = new DataTransfer();
      data.setData('text/plain', t);
      editor.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      await new Promise((r) => setTimeout(r, 50));
      return !editor.classList.contains('ql-blank');
    }, text);

  it('logged out, /app is an anonymous composer: Sign in, no account, and it answers without keeping the chat', async ({ expect }) => {
    const sp = await openSimPage(browser, 'gemini', { signIn: 'no' });
    try {
      expect(new URL(sp.page.url()).pathname).toBe('/app');
      expect(await sp.page.locator('top-bar-actions a[aria-label="Sign in"][href^="/signin"]').count()).toBe(1);
      expect(await sp.page.locator('[aria-label^="Google Account"], a[href*="SignOutOptions"]').count()).toBe(0);
      await typeAndSend(sp, COMPOSER, 'Anonymous question [[sim:ms=100]]');
      await until(() => sp.sim.log.finishes.length === 1, 15_000, 'the answer');
      expect(sp.sim.log.sends).toMatchObject([{ prompt: 'Anonymous question [[sim:ms=100]]', kind: 'answer', anonymous: true, conversationId: null }]);
      expect(await sp.page.locator('model-response .response-footer.complete').count()).toBe(1);
      expect(new URL(sp.page.url()).pathname).toBe('/app');
    } finally {
      await sp.close();
    }
  });

  it('logged in, the page has the account and no Sign in; once the session is gone, a send is refused and a conversation address leads back to the anonymous app', async ({ expect }) => {
    const sp = await openSimPage(browser, 'gemini', {});
    try {
      expect(await sp.page.locator('top-bar-actions a[aria-label^="Google Account"]').count()).toBe(1);
      expect(await sp.page.locator('a[aria-label="Sign in"]').count()).toBe(0);
      await typeAndSend(sp, COMPOSER, 'Saved [[sim:ms=100]]');
      await sp.page.waitForURL((url) => /^\/app\/[0-9a-f]{16}$/.test(url.pathname));
      const address = sp.page.url();
      await sp.page.context().clearCookies();
      // This page was loaded signed in: a send now finds the session gone, it is not answered anonymously.
      await sp.page.click(COMPOSER);
      await sp.page.keyboard.insertText('After the session [[sim:ms=100]]');
      await sp.page.keyboard.press('Enter');
      await sp.page.locator('top-bar-actions a[aria-label="Sign in"]').waitFor();
      expect(sp.sim.log.sends.map((s) => s.prompt)).toEqual(['Saved [[sim:ms=100]]']);
      await sp.page.goto(address);
      expect(new URL(sp.page.url()).pathname).toBe('/app');
      expect(await sp.page.locator('a[aria-label="Sign in"]').count()).toBe(1);
    } finally {
      await sp.close();
    }
  });

  it('classic: the editor takes a synthetic paste whole', async ({ expect }) => {
    const sp = await openSimPage(browser, 'gemini', { look: { layout: 'classic' } });
    try {
      expect(await syntheticPaste(sp, PROMPT)).toBe(true);
      await sp.page.keyboard.press('Enter');
      await until(() => sp.sim.log.sends.length === 1, 15_000, 'the send');
      expect(sp.sim.log.sends[0]!.prompt).toBe(PROMPT);
    } finally {
      await sp.close();
    }
  });

  it("quill-clipboard: a synthetic paste's data is ignored; the browser's own text insertion arrives whole", async ({ expect }) => {
    const sp = await openSimPage(browser, 'gemini', { look: { layout: 'quill-clipboard' } });
    try {
      expect(await syntheticPaste(sp, PROMPT)).toBe(false);
      // The focus is back in the editor, at its end: text inserted now lands there.
      expect(await sp.page.evaluate(() => document.activeElement?.classList.contains('ql-editor'))).toBe(true);
      await sp.page.keyboard.insertText(PROMPT);
      await sp.page.keyboard.press('Enter');
      await until(() => sp.sim.log.sends.length === 1, 15_000, 'the send');
      expect(sp.sim.log.sends[0]!.prompt).toBe(PROMPT);
      await until(() => sp.sim.log.finishes.length === 1, 15_000, 'the answer');
      expect(await sp.page.locator('model-response message-content .markdown').innerText()).toContain('Simulated Gemini · turn 1');
    } finally {
      await sp.close();
    }
  });

  // The `class` cues are accounts.google.com's own addresses, which the simulator replaces by its `/signin`.
  it("the pack's login-wall cues by sign-in link, by name and by the missing account each find the anonymous page; none finds the signed-in one", async ({ expect }) => {
    const pack = PROVIDER_SITES.gemini.page;
    const kinds = ['structure', 'aria'] as const;
    for (const kind of kinds) expect(pack.loginWall!.some((c) => c.kind === kind)).toBe(true);
    /** Per kind of cue: whether a loginWall cue of that kind finds an element on the page. */
    const found = (sp: SimPage) =>
      sp.page.evaluate(
        ([cues, all]) => Object.fromEntries(all.map((kind) => [kind, window.__chatbridge!.which(cues.filter((c) => c.kind === kind)) >= 0])),
        [pack.loginWall!, kinds] as const,
      );
    const anonymous = await openSimPage(browser, 'gemini', { signIn: 'no', initScript: PAGE_HELPERS_SCRIPT });
    const signedIn = await openSimPage(browser, 'gemini', { initScript: PAGE_HELPERS_SCRIPT });
    try {
      expect(await found(anonymous)).toEqual({ structure: true, aria: true });
      // Each structure cue alone: the sign-in link, and the composer without the account button.
      const each = (sp: SimPage) => sp.page.evaluate((cues) => cues.map((c) => window.__chatbridge!.which([c]) >= 0), pack.loginWall!.filter((c) => c.kind === 'structure'));
      expect(await each(anonymous)).toEqual([true, true]);
      expect(await signedIn.page.evaluate((cues) => window.__chatbridge!.which(cues), pack.loginWall!)).toBe(-1);
    } finally {
      await anonymous.close();
      await signedIn.close();
    }
  });

  it('every layout has the 2026 labels', async ({ expect }) => {
    for (const layout of SIM_SITES.gemini.layouts) {
      const sp = await openSimPage(browser, 'gemini', { look: { layout } });
      try {
        expect(await sp.page.locator(`${COMPOSER}[data-gramm="false"]`).count()).toBe(1);
        expect(await sp.page.locator('button[aria-label="Upload & tools"][aria-haspopup="menu"]').count()).toBe(1);
        expect(await sp.page.locator('button[data-test-id="bard-mode-menu-button"][aria-label^="Open mode picker, currently "]').count()).toBe(1);
      } finally {
        await sp.close();
      }
    }
  });
});

for (const layout of SIM_SITES.gemini.layouts.slice(1)) providerSuite('gemini', { layout }, 'core');

describeBeside('ChatBridge on the anonymous Gemini page', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E('gemini', 1);
  }, 60_000);
  afterAll(async () => e?.stop());

  inOrder('an agent whose session is gone finds the anonymous composer: needs_login, and its job waits instead of being answered anonymously', async ({ expect }) => {
    const agent = e.browserAgents[0]!;
    expect(agent.readiness()).toBe('idle');
    await agent.page()!.context().clearCookies();
    const started = Date.now();
    await agent.recheck();
    expect(agent.readiness()).toBe('needs_login');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(new URL(agent.page()!.url()).pathname).toBe('/app');

    const waiting = e.api('POST', '/v1/completions', { body: { provider: 'gemini', prompt: 'Only when signed in' } });
    const id = await until(() => jobIdWhere(e.driver, (prompt) => prompt === 'Only when signed in'));
    // The rounds the submission asked for are over: one would have dispatched it by now.
    await e.service.scheduler.settled();
    expect((await e.driver.job(id))!.status).toBe('queued');
    expect(await e.driver.attempts(id)).toEqual([]);
    expect(e.sim.log.sends.filter((s) => s.anonymous)).toEqual([]);
    // Signed in again, the agent answers the job in a saved conversation.
    await e.signIn(agent);
    const r = await waiting;
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.response).toBe(simulatedAnswer('Gemini', 'gemini', 'Only when signed in', 1));
    expect(e.sim.log.sends.filter((s) => s.anonymous)).toEqual([]);
  });
});
