/**
 * How fast a job fails once its site has changed beyond what the pack knows. One agent on
 * a simulated site, signed in and idle; then a role's cues stop finding anything — written
 * the way a user (or an update channel) would, as an override file in `<data dir>/sites/`
 * that the running service picks up — and a job is sent. It must fail within seconds, as
 * 502 PROVIDER_UI_CHANGED naming the control, not at the per-attempt timeout. The times are
 * printed for the drift report.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumHost } from '../../agents/browser/chromium-host.js';
import { findBrowser } from '../../agents/browser/find-browser.js';
import { SiteBook } from '../../agents/providers/site-book.js';
import type { Role } from '../../agents/providers/site.js';
import { AgentRuntime } from '../../agents/runtime/agent-runtime.js';
import { DiagnosticsKeeper } from '../../agents/runtime/diagnostics.js';
import { signInToSimulator } from '../../agents/simulator/sign-in.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { startSiteServer, type SimSite } from '../../agents/simulator/site-server.js';
import { diagnosticsRoot } from '../../main/core/diagnostics.js';
import type { Provider } from '../../main/core/providers.js';
import { startTestService, type TestService } from '../support/harness.js';
import { until } from '../support/until.js';

/** The flow's bound for "within seconds": the composer wait (10 s) and the new-turn wait (15 s), with room for a loaded machine. */
const WITHIN_MS = 30_000;

const CASES: { provider: Provider; role: Role; says: RegExp }[] = [
  { provider: 'claude', role: 'composer', says: /cannot find the composer/ },
  { provider: 'chatgpt', role: 'assistantTurn', says: /cannot find the answer/ },
  { provider: 'deepseek', role: 'assistantTurn', says: /cannot find the answer/ },
];

for (const { provider, role, says } of CASES) {
  const name = SIM_SITES[provider].name;

  describe(`${name} with no cue finding ${role}`, () => {
    let t: TestService;
    let sim: SimSite;
    let sites: SiteBook;
    let runtime: AgentRuntime;

    beforeAll(async () => {
      sim = await startSiteServer(SIM_SITES[provider]);
      t = await startTestService();
      t.driver.agents.create(provider, `${name} 1`);
      sites = new SiteBook(join(t.dataDir, 'sites'), () => {}, { [provider]: sim.url });
      await sites.open();
      runtime = new AgentRuntime(t.service.pool, ChromiumHost.launching(join(t.dataDir, 'profiles'), findBrowser()), sites, new DiagnosticsKeeper(diagnosticsRoot(t.dataDir)));
      await runtime.start();
      await Promise.all(runtime.list().map((agent) => signInToSimulator(agent, sim.url, SIM_SITES[provider])));
    }, 60_000);
    afterAll(async () => {
      sites?.close();
      await t?.stop();
      await sim?.close();
    });

    it('fails the job within seconds as 502 PROVIDER_UI_CHANGED naming the control', async () => {
      expect(runtime.list()[0]!.readiness()).toBe('idle');
      const broken = { roles: { [role]: [{ kind: 'structure', css: '[data-no-element-has-this]', note: 'the site changed' }] } };
      await writeFile(join(t.dataDir, 'sites', `${provider}.json`), JSON.stringify(broken));
      await until(() => sites.site(provider).override !== null, 15_000, 'the override to be picked up');

      const started = Date.now();
      const r = await t.api('POST', '/v1/completions', { body: { provider, prompt: 'Hello after the redesign' } });
      const seconds = (Date.now() - started) / 1000;
      console.log(`drift report: ${name}, ${role} unfindable: ${r.status} ${r.body.error?.code} after ${seconds.toFixed(1)} s`);

      expect(r.status, JSON.stringify(r.body)).toBe(502);
      expect(r.body.error.code).toBe('PROVIDER_UI_CHANGED');
      expect(r.body.error.message).toMatch(says);
      expect(r.body.error.details.attempts.length).toBeGreaterThan(0);
      expect(seconds * 1000).toBeLessThan(WITHIN_MS);
    }, 60_000);
  });
}
