import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ChromiumHost } from '../../agents/browser/chromium-host.js';
import { HOST_SWITCH, SharedChromium } from '../../agents/browser/shared-chromium.js';
import { findBrowser } from '../../agents/browser/find-browser.js';
import { atBaseUrl, overriddenSite, PROVIDER_SITES } from '../../agents/providers/index.js';
import { FLOW_LIMITS, type FlowLimits } from '../../agents/providers/flow-context.js';
import { checkOverride, type SiteOverride } from '../../agents/providers/pack-schema.js';
import type { ProviderSite } from '../../agents/providers/site.js';
import { AgentRuntime } from '../../agents/runtime/agent-runtime.js';
import { DiagnosticsKeeper } from '../../agents/runtime/diagnostics.js';
import { diagnosticsRoot } from '../../main/core/diagnostics.js';
import type { BrowserAgent } from '../../agents/runtime/browser-agent.js';
import { signInToSimulator } from '../../agents/simulator/sign-in.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { startSiteServer, type SimLook, type SimSite } from '../../agents/simulator/site-server.js';
import type { BrowserHost } from '../../main/core/browser-host.js';
import type { Clock } from '../../main/core/clock.js';
import type { Provider } from '../../main/core/providers.js';
import { startTestService, type TestService } from './harness.js';
import { testChromium } from './test-browser.js';

export interface E2E extends TestService {
  sim: SimSite;
  site: ProviderSite;
  /** Puts a user's override of the pack in force (null: the built-in pack again), as a SiteBook reload would. */
  override(override: SiteOverride | null): void;
  runtime: AgentRuntime;
  browserAgents: BrowserAgent[];
  profilesDir: string;
  signIn(agent: BrowserAgent): Promise<void>;
  /** Kills the agents' browser (they share one), as a crash would: only with `ownBrowser`. */
  killBrowser(): void;
}

export interface E2EOptions {
  /** The flow's waits for a missing role: a test of that failure shortens them, so as not to wait 10 s for it. */
  limits?: Partial<FlowLimits>;
  /** The service's clock, which its browser agents follow too (a test that skips a back-off moves it on). */
  clock?: Clock;
  /**
   * A Chromium for these agents alone, for a test that kills it: other agents take the test
   * process's browser (test-browser.ts), a context each, as a service's agents take theirs.
   */
  ownBrowser?: boolean;
}

/**
 * The service with `count` real browser agents for `provider`, on the simulated site (in
 * the layout and drift `look` names), each signed in through the site's login page: the
 * same adapter code that drives the real site.
 */
export async function startE2E(provider: Provider, count = 2, look: SimLook = {}, options: E2EOptions = {}): Promise<E2E> {
  const config = SIM_SITES[provider]!;
  const sim = await startSiteServer(config, look);
  const t = await startTestService(options.clock ? { clock: options.clock } : {});
  const site = atBaseUrl(PROVIDER_SITES[provider]!, sim.url);
  let current = site;
  for (let i = 1; i <= count; i++) t.service.pool.create(provider, `${config.name} ${i}`);
  const profilesDir = join(t.dataDir, 'profiles');
  const diagnostics = new DiagnosticsKeeper(diagnosticsRoot(t.dataDir));
  const sites = { site: (p: Provider) => (p === provider ? current : undefined) };
  const limits = { ...FLOW_LIMITS, ...options.limits };
  // The host's one-time note (no sandbox as root) is for a person starting ChatBridge.
  const chromium = options.ownBrowser ? new SharedChromium({ executable: findBrowser(), name: profilesDir, warn: () => {} }) : testChromium();
  const host = signedInFirst(new ChromiumHost(profilesDir, chromium), sim);
  const runtime = new AgentRuntime(t.service.pool, host, sites, diagnostics, limits, options.clock);
  await runtime.start();
  const signIn = (agent: BrowserAgent) => signInToSimulator(agent, sim.url, config);
  return {
    ...t,
    sim,
    site,
    override(override) {
      current = override ? atBaseUrl(overriddenSite(provider, checkOverride(override, 'test'), 'test'), sim.url) : site;
    },
    runtime,
    browserAgents: runtime.list(),
    profilesDir,
    signIn,
    killBrowser() {
      if (!options.ownBrowser) throw new Error('killBrowser needs startE2E(…, { ownBrowser: true }): the test process shares this browser');
      // Its main process, named by its profiles folder (other suites' browsers may run beside it); its helpers go with it.
      execFileSync('pkill', ['-KILL', '-f', '--', `${HOST_SWITCH}=${profilesDir}`]);
    },
    async stop() {
      await t.stop();
      await sim.close();
    },
  };
}

/**
 * Each agent's browser, the first time it opens, already holds a session of the simulated
 * site, as a paired account's profile does: its first look finds the chat, and no test pays
 * the login form's three page loads per agent (pairing.test.ts goes through the form, and a
 * test that logs an agent out signs it in again with `signIn`). Opened again (a restart), the
 * profile keeps what it had, as a real one does.
 */
function signedInFirst(host: BrowserHost, sim: SimSite): BrowserHost {
  const opened = new Set<string>();
  return {
    async open(agentId, options) {
      const session = await host.open(agentId, options);
      if (!opened.has(agentId)) {
        opened.add(agentId);
        await session.page.context().addCookies([sim.session()]);
      }
      return session;
    },
    forget: (agentId) => host.forget(agentId),
  };
}
