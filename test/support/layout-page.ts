/**
 * A simulated site's page in headless Chromium, used the way a person uses it (typing,
 * Enter, clicks): for tests of what a layout renders, without the service or an agent.
 */
import type { Browser, Page } from 'playwright-core';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { startSiteServer, type SimLook, type SimSite } from '../../agents/simulator/site-server.js';
import type { Provider } from '../../main/core/providers.js';
import { until } from './until.js';

export interface SimPage {
  sim: SimSite;
  page: Page;
  close(): Promise<void>;
}

/**
 * The site in `look`, and a page on its new chat: logged in through the login form unless
 * `signedIn` is false; `initScript` runs in every page before the site's own scripts.
 */
export async function openSimPage(browser: Browser, provider: Provider, look: SimLook, signedIn = true, initScript?: string): Promise<SimPage> {
  const config = SIM_SITES[provider];
  const sim = await startSiteServer(config, look);
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  if (initScript) await context.addInitScript(initScript);
  const page = await context.newPage();
  if (signedIn) {
    await page.goto(new URL(config.paths.login, sim.url).href);
    await page.fill('input[name="email"]', 'person@example.test');
    await page.fill('input[name="password"]', 'simulated');
    await Promise.all([page.waitForURL((url) => url.pathname === config.paths.newChat), page.click('[data-testid="login-submit"]')]);
  } else {
    await page.goto(new URL(config.paths.newChat, sim.url).href);
  }
  return {
    sim,
    page,
    close: async () => {
      await context.close();
      await sim.close();
    },
  };
}

/**
 * Types `prompt` into the composer found by `composer` and presses Enter; resolves once
 * the site has logged the send. Newlines go in as text, not as Enter presses.
 */
export async function typeAndSend(sp: SimPage, composer: string, prompt: string): Promise<void> {
  const before = sp.sim.log.sends.length;
  await sp.page.click(composer);
  await sp.page.keyboard.insertText(prompt);
  await sp.page.keyboard.press('Enter');
  await until(() => sp.sim.log.sends.length > before, 5_000, `the site to receive "${prompt}"`);
}
