import { describe, expect, it } from 'vitest';
import { agentPartition, agentViewPreferences, CSP, dashboardPreferences, isDashboardUrl } from '../../main/electron/security.js';

describe('desktop security rules', () => {
  it('recognises the dashboard origin by parsing, not by prefix', () => {
    expect(isDashboardUrl('app://dashboard/')).toBe(true);
    expect(isDashboardUrl('app://dashboard/agents?x=1')).toBe(true);
    for (const url of ['app://dashboard.evil/', 'app://dashboardx/', 'https://dashboard/', 'file:///app/dashboard', 'app:dashboard', 'not a url']) {
      expect(isDashboardUrl(url), url).toBe(false);
    }
  });

  it('isolates and sandboxes every page, and gives agent views no preload', () => {
    const dashboard = dashboardPreferences('/app/preload.cjs');
    expect(dashboard).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false });
    const view = agentViewPreferences('agt_abc');
    expect(view).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, partition: 'persist:agent-agt_abc', devTools: false });
    expect('preload' in view).toBe(false);
  });

  it('gives each agent its own persistent partition, from a well-formed id only', () => {
    expect(agentPartition('agt_1')).toBe('persist:agent-agt_1');
    expect(() => agentPartition('../x')).toThrow();
    expect(() => agentPartition('')).toThrow();
  });

  it('has a CSP that allows only the app origin', () => {
    expect(CSP).toContain("default-src 'none'");
    expect(CSP).toContain("script-src 'self'");
    expect(CSP).not.toMatch(/unsafe-(inline|eval)/);
  });
});
