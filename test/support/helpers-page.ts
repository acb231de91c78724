import type { Page } from 'playwright-core';
import { PAGE_HELPERS_SCRIPT } from '../../agents/providers/page-helpers.js';
import { giveBackTestBrowser, takeTestBrowser } from './test-browser.js';

/**
 * A blank page in real Chromium with the page helpers installed, for tests of the helpers on
 * markup they set: a context of its own in the test process's browser, closed by `close`.
 */
export async function openHelpersPage(): Promise<{ page: Page; close(): Promise<void> }> {
  const browser = await takeTestBrowser();
  const context = await browser.newContext();
  await context.addInitScript(PAGE_HELPERS_SCRIPT);
  const page = await context.newPage();
  await page.goto('about:blank');
  return {
    page,
    close: async () => {
      await context.close();
      await giveBackTestBrowser(browser);
    },
  };
}
