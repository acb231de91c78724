import type { BrowserAgent } from '../runtime/browser-agent.js';
import type { SimSiteConfig } from './site-config.js';

/** Sign-ins tried before the start gives up: a loaded machine can abort a navigation on the way. */
const SIGN_IN_TRIES = 3;

/**
 * Logs an agent into its simulated site the way a person pairs an account: the login page,
 * an address and a password, Continue. Then the agent checks its state again.
 */
export async function signInToSimulator(agent: BrowserAgent, baseUrl: string, config: SimSiteConfig): Promise<void> {
  for (let tried = 1; ; tried++) {
    try {
      return await signIn(agent, baseUrl, config);
    } catch (error) {
      // Seen on a slow machine: a page load aborted (net::ERR_ABORTED) failed the whole start.
      if (tried === SIGN_IN_TRIES) throw error;
    }
  }
}

async function signIn(agent: BrowserAgent, baseUrl: string, config: SimSiteConfig): Promise<void> {
  const page = agent.page();
  if (!page) throw new Error(`Agent ${agent.id} has no page`);
  await page.goto(new URL(config.paths.login, baseUrl).href).catch((error: Error) => {
    // Seen on a slow machine: the agent's own look, sent to the login page as signed out, came
    // in between. Both end on the login page, whose form is filled as soon as it shows.
    if (!/interrupted by another navigation/i.test(error.message)) throw error;
  });
  await page.fill('input[name="email"]', 'agent@example.test');
  await page.fill('input[name="password"]', 'simulated');
  // Off the login page: to the new chat, or where the site keeps it for this account (`/u/1/app`),
  // only until the address changes: the session cookie came with the redirect, and the look
  // below opens a new chat of its own.
  await Promise.all([
    page.waitForURL((url) => url.pathname.endsWith(config.paths.newChat), { waitUntil: 'commit' }),
    page.click('[data-testid="login-submit"]'),
  ]);
  await agent.recheck();
}
