/**
 * Variants in real Chromium, driven by the flow every agent runs, against the simulated
 * sites' pickers and toggles: each provider's variant selected and verified before the
 * prompt is typed, the model the page says answered; an account that lacks the variant, a
 * picker whose words changed, a choice that does not take: each VARIANT_UNAVAILABLE naming
 * what the page offered, with nothing typed or sent. One browser and one site per account
 * kind serve the whole file.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it, type TestContext } from 'vitest';
import { FLOW_LIMITS, flowContext, type FlowLimits } from '../../agents/providers/flow-context.js';
import { openNewChat, runTurn, waitUntilReady } from '../../agents/providers/flow.js';
import { atBaseUrl, overriddenSite, PROVIDER_SITES } from '../../agents/providers/index.js';
import { checkOverride, type SiteOverride } from '../../agents/providers/pack-schema.js';
import { PAGE_HELPERS_SCRIPT } from '../../agents/providers/page-helpers.js';
import type { ProviderSite } from '../../agents/providers/site.js';
import { inspectSite } from '../../agents/runtime/site-check.js';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import type { SimLook } from '../../agents/simulator/site-server.js';
import { VariantUnavailable, type AgentNote, type AgentResult } from '../../main/core/agent.js';
import type { Provider } from '../../main/core/providers.js';
import { describeBeside } from '../support/beside.js';
import { startE2E } from '../support/e2e.js';
import { openSimPage } from '../support/sim-page.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

let browser: Browser;
const notes: AgentNote[] = [];

beforeAll(async () => {
  browser = await takeTestBrowser();
}, 30_000);
afterAll(async () => giveBackTestBrowser(browser));

/** One simulated account for the test `context`: its site in `look`, a signed-in page, and its site as the flow drives it. */
async function account(context: TestContext, provider: Provider, look: SimLook = {}, override: SiteOverride | null = null) {
  const opened = await openSimPage(browser, provider, { look, initScript: PAGE_HELPERS_SCRIPT, viewport: { width: 1280, height: 900 } });
  context.onTestFinished(() => opened.close());
  const { sim, page } = opened;
  const site: ProviderSite = atBaseUrl(override ? overriddenSite(provider, checkOverride(override, 'test'), 'test') : PROVIDER_SITES[provider], sim.url);
  return {
    sim,
    page,
    site,
    /** One job: a fresh chat (or the conversation), as BrowserAgent runs it. */
    async run(prompt: string, variant: string | null, conversation: string | null = null, limits: FlowLimits = FLOW_LIMITS): Promise<AgentResult> {
      if (conversation) await page.goto(conversation);
      else await openNewChat(flowContext(page, site));
      await waitUntilReady(flowContext(page, site, { limits }));
      return runTurn(flowContext(page, site, { notes: (n) => notes.push(n), limits, signal: AbortSignal.timeout(30_000) }), { prompt, variant, label: 'variants-test' });
    },
  };
}

/** The failure a job gets, or a test failure when it answered. */
async function refusal(job: Promise<AgentResult>): Promise<VariantUnavailable> {
  const outcome = await job.then(
    () => null,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(VariantUnavailable);
  return outcome as VariantUnavailable;
}

describeBeside('a variant selected and verified before the prompt is typed', () => {
  const cases: { provider: Provider; look?: SimLook; variant: string; sent: { model: string | null; modes: string[] }; modelUsed: string | null }[] = [
    { provider: 'chatgpt', look: { layout: 'section' }, variant: 'thinking', sent: { model: 'thinking', modes: [] }, modelUsed: 'gpt-5-5-thinking' },
    { provider: 'chatgpt', look: { layout: 'section', variants: { inertMs: 2_000 } }, variant: 'pro', sent: { model: 'pro', modes: [] }, modelUsed: 'gpt-5-5-pro' },
    // The picker's label names the model (with "Extended" while extended thinking is on), the toggles on the mode.
    { provider: 'claude', variant: 'opus-thinking', sent: { model: 'opus', modes: ['extended-thinking'] }, modelUsed: 'Opus 4.5 Extended' },
    { provider: 'gemini', look: { variants: { lateMs: 1_500 } }, variant: 'pro', sent: { model: 'pro', modes: [] }, modelUsed: 'Pro' },
    { provider: 'deepseek', variant: 'deepthink-search', sent: { model: null, modes: ['deepthink', 'search'] }, modelUsed: 'DeepThink + Search' },
    { provider: 'qwen', variant: 'coder', sent: { model: 'coder', modes: [] }, modelUsed: 'Qwen3-Coder' },
    { provider: 'qwen', look: { variants: { lateMs: 1_500 } }, variant: 'thinking', sent: { model: 'max', modes: ['thinking'] }, modelUsed: 'Qwen3-Max' },
    { provider: 'perplexity', variant: 'research', sent: { model: 'research', modes: [] }, modelUsed: 'Research' },
  ];
  for (const c of cases) {
    const late = c.look?.variants?.lateMs ? ', the picker showing late' : c.look?.variants?.inertMs ? ', the picker deaf to clicks at first' : '';
    it(`${SIM_SITES[c.provider].name}: ${c.variant}${late}`, async (context) => {
      const { expect } = context;
      const a = await account(context, c.provider, c.look);
      const prompt = `Which model? (${c.variant})`;
      const result = await a.run(prompt, c.variant);
      expect(result.text).toBe(simulatedAnswer(SIM_SITES[c.provider].name, c.provider, prompt, 1));
      expect(a.sim.log.sends.map((s) => s.variant)).toEqual([c.sent]);
      expect(result.modelUsed).toBe(c.modelUsed);
      // Chosen already, the same variant is verified and left as it is.
      const picks = a.sim.log.variantPicks;
      await a.run('Again', c.variant);
      expect(a.sim.log.variantPicks).toBe(picks);
      expect(a.sim.log.sends[1]!.variant).toEqual(c.sent);
    }, 60_000);
  }

  it('touches nothing without a variant, and a conversation continued keeps its model', async (context) => {
    const { expect } = context;
    const a = await account(context, 'chatgpt', { layout: 'section' });
    const plain = await a.run('Default model', null);
    expect(a.sim.log.variantPicks).toBe(0);
    expect(plain.modelUsed).toBe('gpt-5-5');
    const first = await a.run('Hard question', 'pro');
    expect(first.modelUsed).toBe('gpt-5-5-pro');
    const picks = a.sim.log.variantPicks;
    const next = await a.run('Follow-up', null, first.conversation);
    expect(next.modelUsed).toBe('gpt-5-5-pro');
    expect(a.sim.log.sends.at(-1)!.variant).toEqual({ model: 'pro', modes: [] });
    expect(a.sim.log.variantPicks).toBe(picks);
    // The app-shell build says no model on its answers: its picker's label does.
    const shell = await account(context, 'chatgpt');
    expect((await shell.run('No slug here', 'thinking')).modelUsed).toBe('Thinking');
    // DeepSeek with no toggle on names nothing beyond "DeepSeek".
    const deepseek = await account(context, 'deepseek');
    expect((await deepseek.run('Plain DeepSeek', null)).modelUsed).toBeNull();
  }, 60_000);
});

describeBeside('a variant that cannot be chosen for sure is refused, and nothing is sent', () => {
  // A picker that never opens is given up on after `controlsMs`: 45 s in the product, 2 s here.
  const cases: { what: string; provider: Provider; look: SimLook; variant: string; offered: string[] | null; says: RegExp; controlsMs?: number }[] = [
    { what: 'an account without it', provider: 'chatgpt', look: { variants: { lacks: ['pro'] } }, variant: 'pro', offered: ['instant', 'thinking'], says: /not offered/ },
    { what: 'a free plan that shows it disabled', provider: 'perplexity', look: { variants: { lacks: ['research', 'labs'] } }, variant: 'research', offered: ['search'], says: /not to this account/ },
    { what: 'a picker whose words changed', provider: 'deepseek', look: { variants: { renamed: true } }, variant: 'deepthink', offered: [], says: /"Option A", "Option B"/ },
    { what: 'a model menu whose words changed', provider: 'qwen', look: { variants: { renamed: true } }, variant: 'max', offered: [], says: /not offered/ },
    // What the account offers is not known then (null): only this variant is passed by.
    { what: 'a picker that never opens', provider: 'chatgpt', look: { variants: { inertMs: 600_000 } }, variant: 'pro', offered: null, says: /no model picker opens/, controlsMs: 2_000 },
    { what: 'toggles that never show', provider: 'deepseek', look: { variants: { lateMs: 600_000 } }, variant: 'deepthink', offered: null, says: /no mode toggles show/, controlsMs: 2_000 },
    { what: 'a choice that does not take', provider: 'gemini', look: { variants: { ignored: ['pro'] } }, variant: 'pro', offered: ['fast', 'thinking', 'pro'], says: /does not show it in force/ },
    { what: 'a toggle that does not take', provider: 'claude', look: { variants: { ignored: ['extended-thinking'] } }, variant: 'opus-thinking', offered: ['opus', 'sonnet', 'haiku', 'extended-thinking', 'opus-thinking'], says: /does not show it in force/ },
  ];
  for (const c of cases) {
    it(`${SIM_SITES[c.provider].name}: ${c.what}`, async (context) => {
      const { expect } = context;
      const a = await account(context, c.provider, c.look);
      const failure = await refusal(a.run('Must not be sent', c.variant, null, { ...FLOW_LIMITS, controlsMs: c.controlsMs ?? FLOW_LIMITS.controlsMs }));
      expect(failure.kind).toBe('variant_unavailable');
      expect(failure.variant).toBe(c.variant);
      expect(failure.offered).toEqual(c.offered);
      expect(failure.message).toMatch(c.says);
      expect(a.sim.log.sends).toEqual([]);
      // Nothing was typed either.
      expect(await a.page.evaluate((p) => window.__chatbridge!.find(p.composer)?.textContent ?? '', a.site.page)).toBe('');
    }, 60_000);
  }
});

describeBeside('the site check lists the variants the account offers now', () => {
  it('per account, the picker closed again afterwards', async (context) => {
    const { expect } = context;
    const free = await account(context, 'chatgpt', { variants: { lacks: ['pro'] } });
    await openNewChat(flowContext(free.page, free.site));
    expect((await inspectSite(flowContext(free.page, free.site), false)).variants).toEqual(['instant', 'thinking']);
    expect(await free.page.locator('[role="menu"]').isVisible()).toBe(false);
    const deepseek = await account(context, 'deepseek');
    expect((await inspectSite(flowContext(deepseek.page, deepseek.site), false)).variants).toEqual(['deepthink', 'search', 'deepthink-search']);
    const perplexity = await account(context, 'perplexity', { variants: { lacks: ['labs'] } });
    expect((await inspectSite(flowContext(perplexity.page, perplexity.site), false)).variants).toEqual(['search', 'research']);
    // A picker that never opens says nothing of the account (not "none"): its agent is not passed over.
    const deaf = await account(context, 'chatgpt', { variants: { inertMs: 600_000 } });
    expect((await inspectSite(flowContext(deaf.page, deaf.site, { limits: { ...FLOW_LIMITS, controlsMs: 2_000 } }), false)).variants).toBeNull();
    const bare = await account(context, 'deepseek', { variants: { lateMs: 600_000 } });
    expect((await inspectSite(flowContext(bare.page, bare.site, { limits: { ...FLOW_LIMITS, controlsMs: 2_000 } }), false)).variants).toBeNull();
  }, 60_000);
});

describeBeside('long thinking', () => {
  // The answer must appear within 1 s of a stop control without "Thinking…"; this one thinks 2.5 s first.
  const limits: FlowLimits = { ...FLOW_LIMITS, appearWorkingMs: 1_000 };
  const prompt = 'Think hard [[sim:think-first=2500]]';

  it('is not a hang while the page says it is thinking', async (context) => {
    const { expect } = context;
    const a = await account(context, 'chatgpt', {});
    const result = await a.run(prompt, 'pro', null, limits);
    expect(result.text).toBe(simulatedAnswer('ChatGPT', 'chatgpt', prompt, 1));
  }, 60_000);

  it('is a missing answer when no cue sees the thinking', async (context) => {
    const { expect } = context;
    const a = await account(context, 'chatgpt', {}, { variants: { thinking: [{ kind: 'class', css: '.no-such-status' }] } });
    await expect(a.run(prompt, null, null, limits)).rejects.toMatchObject({ kind: 'site_changed' });
  }, 60_000);
});

describeBeside('through a browser agent', () => {
  it('runs a job under its variant, refuses one the account lacks and stays ready, and its site check lists what the account offers', async ({ expect }) => {
    const e = await startE2E('chatgpt', 1, { layout: 'section', variants: { lacks: ['pro'] } });
    try {
      const [agent] = e.browserAgents;
      const job = (variant: string | null) => agent!.run({ prompt: `Under ${variant}`, conversation: null, variant, signal: AbortSignal.timeout(30_000), label: 'variants-agent' });
      expect((await job('thinking')).modelUsed).toBe('gpt-5-5-thinking');
      const failure = await refusal(job('pro'));
      expect(failure.offered).toEqual(['instant', 'thinking']);
      // The account is fine: only the variant is missing, so the agent takes the next job.
      expect(agent!.readiness()).toBe('idle');
      expect(e.sim.log.sends).toHaveLength(1);
      expect((await agent!.checkSite(false)).inspection.variants).toEqual(['instant', 'thinking']);
    } finally {
      await e.stop();
    }
  }, 90_000);
});

afterAll(() => {
  // What choosing adds to a job, per provider (the flow's own note): for the report, not a target.
  const times = notes.map((n) => /chose (\S+)'s .* in (\d+) ms/.exec(n.message)).filter((m) => m !== null);
  if (times.length) console.info(times.map((m) => `${m[1]} ${m[2]} ms`).join('; '));
});
