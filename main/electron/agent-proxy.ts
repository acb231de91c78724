import type { ProxySetting } from '../core/proxy.js';
import type { ProxyConfig } from './electron-api.js';

/**
 * An agent's proxy in the desktop app: its partition's `session.setProxy` configuration,
 * and the answer to the proxy's login challenge (Electron's `login` event on the agent's
 * page). Kept apart from views.ts, which only wires them in, so that they are tested here.
 */
export interface AgentProxy {
  config: ProxyConfig;
  /** The credentials for a login challenge, when it is this proxy's asking; null leaves the challenge unanswered. */
  credentials(challenge: { isProxy: boolean; host: string; port: number }): { username: string; password: string } | null;
}

export function agentProxy(proxy: ProxySetting | null): AgentProxy {
  if (!proxy) return { config: { mode: 'direct' }, credentials: () => null };
  return {
    // Loopback goes through the proxy too, as headless (Playwright) does: one behaviour on both hosts.
    config: { mode: 'fixed_servers', proxyRules: proxy.server, proxyBypassRules: '<-loopback>' },
    credentials: (challenge) =>
      // Never a site's own login prompt, nor another proxy's: only this proxy gets its credentials.
      challenge.isProxy && proxy.username !== null && challenge.host.toLowerCase() === proxy.host.replace(/^\[|\]$/g, '') && challenge.port === proxy.port
        ? { username: proxy.username, password: proxy.password ?? '' }
        : null,
  };
}
