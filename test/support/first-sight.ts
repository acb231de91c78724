/**
 * What a page showed at the moment something first appeared, seen by the page itself. A test
 * that waits for a passing state (an answer still streaming) and then looks again from outside
 * can come after the whole state on a loaded machine; the page's own MutationObserver cannot.
 */
import type { Page } from 'playwright-core';

/** What the page keeps of the sight, on `window.firstSight`. */
type Kept = { element: Element; text: string; counts: Record<string, number> };

export interface FirstSight {
  /** The first element's text when it first matched. */
  text: string;
  /** How many elements matched each of `counted` when `selector` first matched. */
  counts: Record<string, number>;
  /** Whether the element that matched first is still in the document now. */
  stillThere: boolean;
}

/**
 * Starts watching `page` for the first shown element matching `selector` (call it before the
 * action that shows it); the function it returns waits for that sight and tells it.
 */
export async function watchFirstSight(page: Page, selector: string, counted: string[] = []): Promise<() => Promise<FirstSight>> {
  await page.evaluate(
    ([selector, counted]) => {
      const w = window as unknown as { firstSight?: Kept };
      delete w.firstSight;
      const look = () => {
        // Shown, as Playwright's waitFor means it: a control may sit hidden in the page from the start.
        const element = Array.from(document.querySelectorAll(selector)).find((e) => e.checkVisibility());
        if (!element) return false;
        w.firstSight = { element, text: element.textContent ?? '', counts: Object.fromEntries(counted.map((c) => [c, document.querySelectorAll(c).length])) };
        return true;
      };
      if (look()) return;
      new MutationObserver((_, observer) => {
        if (look()) observer.disconnect();
      }).observe(document.documentElement, { childList: true, subtree: true, attributes: true });
    },
    [selector, counted] as const,
  );
  return async () => {
    await page.waitForFunction(() => !!(window as unknown as { firstSight?: unknown }).firstSight);
    return page.evaluate(() => {
      const seen = (window as unknown as { firstSight: Kept }).firstSight;
      return { text: seen.text, counts: seen.counts, stillThere: seen.element.isConnected };
    });
  };
}
