import type { BrowserAgent } from '../runtime/browser-agent.js';
import type { SimSiteConfig } from './site-config.js';

/**
 * Logs an agent into its simulated site the way a person pairs an account: the login page,
 * an address and a password, Continue. Then the agent checks its state again.
 */
export async function signInToSimulator(agent: BrowserAgent, baseUrl: string, config: SimSiteConfig): Promise<void> {
  const page = agent.page();
  if (!page) throw new Error(`Agent ${agent.id} has no page`);
  await page.goto(new URL(config.paths.login, baseUrl).href);
  await page.fill('input[name="email"]', 'agent@example.test');
  await page.fill('input[name="password"]', 'simulated');
  // Off the login page: to the new chat, or where the site keeps it for this account (`/u/1/app`).
  await Promise.all([page.waitForURL((url) => url.pathname.endsWith(config.paths.newChat)), page.click('[data-testid="login-submit"]')]);
  await agent.recheck();
}
