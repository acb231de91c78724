import { chromium, type Browser, type Page } from 'playwright-core';
import { findBrowser } from '../../agents/browser/find-browser.js';
import { PAGE_HELPERS_SCRIPT } from '../../agents/providers/page-helpers.js';

/** A blank page in real Chromium with the page helpers installed, for tests of the helpers on markup they set. */
export async function openHelpersPage(): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: findBrowser() });
  const context = await browser.newContext();
  await context.addInitScript(PAGE_HELPERS_SCRIPT);
  const page = await context.newPage();
  await page.goto('about:blank');
  return { browser, page };
}
