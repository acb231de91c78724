import { afterEach, describe, expect, it } from 'vitest';
import type { AgentReadiness } from '../../main/core/agent.js';
import { atBaseUrl, PROVIDER_SITES } from '../../agents/providers/index.js';
import { BrowserAgent } from '../../agents/runtime/browser-agent.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { startSiteServer, type SimSite } from '../../agents/simulator/site-server.js';
import type { LoginWindow } from '../../main/core/agent-control.js';
import { Pairing, pairingPage, type PairingPage, type PairingStep } from '../../agents/runtime/pairing.js';
import { ViewHost, type AgentViews } from '../../main/electron/view-host.js';
import { startChromiumPage, type ChromiumPage } from './chromium-page-debugger.js';

const claude = PROVIDER_SITES.claude;

function fakeWindow() {
  const closedListeners: (() => void)[] = [];
  const w = {
    shown: 0,
    closed: 0,
    show: () => void w.shown++,
    close: () => void w.closed++,
    onClosed: (l: () => void) => void closedListeners.push(l),
    /** The person closes the window. */
    userCloses: () => closedListeners.forEach((l) => l()),
  };
  return w satisfies LoginWindow & Record<string, unknown>;
}

function fakePage(start: string) {
  let current = start;
  const listeners = new Set<(url: string) => void>();
  const page: PairingPage & { visited: string[]; navigate(url: string): void } = {
    visited: [],
    url: () => current,
    goto: async (url) => {
      page.visited.push(url);
      page.navigate(url);
    },
    onNavigated: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    navigate: (url) => {
      current = url;
      for (const l of [...listeners]) l(url);
    },
  };
  return page;
}

/** An agent whose login state the test sets; recheck navigates the page, as the real one does. */
function fakeAgent(page: ReturnType<typeof fakePage>, state: AgentReadiness) {
  const agent = {
    state,
    rechecks: 0,
    readiness: () => agent.state,
    recheck: async () => {
      agent.rechecks++;
      page.navigate('https://claude.ai/new');
    },
  };
  return agent;
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('Pairing (the flow, with fakes)', () => {
  it('opens the login page, checks when the page comes back to the site, and closes when logged in', async () => {
    const page = fakePage('https://claude.ai/new');
    const agent = fakeAgent(page, 'needs_login');
    const window = fakeWindow();
    const pairing = new Pairing(agent, claude, page, window);
    const steps: PairingStep[] = [];
    pairing.onStep((s) => steps.push(s));
    const done = pairing.run();
    await settle();
    expect(window.shown).toBe(1);
    expect(page.visited).toEqual(['https://claude.ai/login']);
    // The person moves through the provider's own login pages and its identity provider: no check.
    page.navigate('https://claude.ai/login?step=code');
    page.navigate('https://accounts.google.com/signin');
    expect(agent.rechecks).toBe(0);
    // Back on the site, logged in. The check's own navigation does not start a second check.
    agent.state = 'idle';
    page.navigate('https://claude.ai/new');
    expect(await done).toBe('paired');
    expect(agent.rechecks).toBe(1);
    expect(steps).toEqual(['checking', 'paired']);
    expect(window.closed).toBe(1);
  });

  it('goes back to waiting when the check finds the agent still logged out', async () => {
    const page = fakePage('https://claude.ai/login');
    const agent = fakeAgent(page, 'needs_login');
    const pairing = new Pairing(agent, claude, page, fakeWindow());
    void pairing.run();
    await settle();
    expect(page.visited).toEqual([]); // already on a login page
    page.navigate('https://claude.ai/new');
    await settle();
    expect(pairing.step()).toBe('login');
    expect(agent.rechecks).toBe(1);
  });

  it('is paired at once when the partition is still logged in; ends when the person closes the window', async () => {
    const loggedIn = fakePage('https://claude.ai/new');
    const window = fakeWindow();
    expect(await new Pairing(fakeAgent(loggedIn, 'idle'), claude, loggedIn, window).run()).toBe('paired');
    expect(window.closed).toBe(1);

    const page = fakePage('https://claude.ai/login');
    const agent = fakeAgent(page, 'needs_login');
    const w2 = fakeWindow();
    const done = new Pairing(agent, claude, page, w2).run();
    await settle();
    w2.userCloses();
    expect(await done).toBe('closed');
    page.navigate('https://claude.ai/new');
    expect(agent.rechecks).toBe(0);
  });

  it('checks on request, for sites that log in inside a dialog', async () => {
    const page = fakePage('https://claude.ai/login');
    const agent = fakeAgent(page, 'needs_login');
    const pairing = new Pairing(agent, claude, page, fakeWindow());
    const done = pairing.run();
    agent.state = 'idle';
    await pairing.checkNow();
    expect(await done).toBe('paired');
  });
});

describe('Pairing an agent on the view host, for real (simulated site, Chromium through the page debugger)', () => {
  let sim: SimSite | undefined;
  const pages: ChromiumPage[] = [];
  afterEach(async () => {
    await Promise.all(pages.splice(0).map((p) => p.stop()));
    await sim?.close();
  });

  it('takes a new agent from needs_login to idle as the person logs in', async () => {
    const config = SIM_SITES.claude!;
    sim = await startSiteServer(config);
    const site = atBaseUrl(claude, sim.url);
    const views: AgentViews = {
      create: async () => {
        const p = await startChromiumPage();
        pages.push(p);
        return {
          debugger: p.debugger,
          version: { product: 'Chrome/140.0.0.0', userAgent: 'Mozilla/5.0 Chrome/140.0.0.0' },
          onGone: (l) => p.debugger.onDetach(l),
          destroy: () => void p.closePage().catch(() => {}),
        };
      },
      forget: async () => {},
    };
    const agent = new BrowserAgent('agt_pairing', () => site, new ViewHost(views));
    await agent.start();
    expect(agent.readiness()).toBe('needs_login');

    const page = agent.page()!;
    const window = fakeWindow();
    const done = new Pairing(agent, site, pairingPage(page), window).run();
    await page.waitForURL((u) => u.pathname === config.paths.login);
    // The person, in the login window:
    await page.fill('input[name="email"]', 'person@example.test');
    await page.fill('input[name="password"]', 'simulated');
    await page.click('[data-testid="login-submit"]');
    expect(await done).toBe('paired');
    expect(agent.readiness()).toBe('idle');
    expect(window.closed).toBe(1);
    await agent.close();
  });
});
