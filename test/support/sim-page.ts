import { chromium, type Browser, type Page } from 'playwright-core';
import { findBrowser } from '../../agents/browser/find-browser.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { startSiteServer, type SimLook, type SimSite } from '../../agents/simulator/site-server.js';
import type { Provider } from '../../main/core/providers.js';

export interface SimPage {
  sim: SimSite;
  page: Page;
  /** Types `prompt` into the composer and presses Enter, as a person would. */
  ask(prompt: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * One simulated site in `look` and a signed-in browser page on it, without ChatBridge: for
 * checking what the simulator itself shows.
 */
export async function openSimPage(provider: Provider, look: SimLook = {}): Promise<SimPage> {
  const config = SIM_SITES[provider]!;
  const sim = await startSiteServer(config, look);
  const browser: Browser = await chromium.launch({ executablePath: findBrowser() });
  const page = await browser.newPage();
  await page.goto(new URL(config.paths.login, sim.url).href);
  await page.fill('input[name="email"]', 'person@example.test');
  await page.fill('input[name="password"]', 'simulated');
  await Promise.all([page.waitForURL((url) => url.pathname === config.paths.newChat), page.click('[data-testid="login-submit"]')]);
  const composer = provider === 'qwen' ? 'textarea.message-input-textarea' : provider === 'perplexity' ? '#ask-input' : '[contenteditable="true"], textarea';
  return {
    sim,
    page,
    async ask(prompt) {
      await page.locator(composer).first().click();
      await page.keyboard.insertText(prompt);
      await page.keyboard.press('Enter');
    },
    async close() {
      await browser.close();
      await sim.close();
    },
  };
}
