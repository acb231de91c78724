import type { Browser, Page } from 'playwright-core';

/**
 * Pages of tests that ended, for the next test to use again, per browser and per kind (how
 * the page was made: its window, its init script, its routes). A new context and its first
 * page cost ~0.9 s of CPU (a renderer process of its own, a cold cache), a page used again
 * ~0.25 s. A page given back is left clean: its site's storage cleared (the next test's site
 * may share its origin), on about:blank, without cookies.
 */
export class PagePool<Held extends { page: Page }> {
  private readonly idle = new WeakMap<Browser, Map<string, Held[]>>();

  /** A page of `kind` given back in `browser`, or a new one from `make`. */
  async take(browser: Browser, kind: string, make: () => Promise<Held>): Promise<Held> {
    return this.idle.get(browser)?.get(kind)?.pop() ?? make();
  }

  /** Cleans `held`'s page and keeps it for the next `take` of its kind (unless it was closed). */
  async giveBack(browser: Browser, kind: string, held: Held): Promise<void> {
    const { page } = held;
    await page.evaluate(() => (localStorage.clear(), sessionStorage.clear())).catch(() => {});
    await page.goto('about:blank').catch(() => {});
    await page
      .context()
      .clearCookies()
      .catch(() => {});
    if (page.isClosed()) return;
    const byKind = this.idle.get(browser) ?? new Map<string, Held[]>();
    this.idle.set(browser, byKind);
    byKind.set(kind, [...(byKind.get(kind) ?? []), held]);
  }
}
