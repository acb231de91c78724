/**
 * The real captured pages with what looks like the sites' notices put into their
 * conversation (issue 31 §2): the lookalike samples (test/support/lookalikes.ts) rendered
 * into the last answer, a lookalike title at the start of each of the person's turns and in
 * every place the pack knows a chat's title. The page's notices read the
 * same as before (none, or the capture's own login wall); the same markup outside the
 * conversation is read as a notice, so each page would fall for it if it were not told apart.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PROVIDER_SITES } from '../../agents/providers/index.js';
import type { Helpers } from '../../agents/providers/page-helpers/types.js';
import type { PagePack } from '../../agents/providers/site.js';
import { renderMarkdown } from '../../agents/simulator/client/markdown.js';
import { LOOKALIKE_MARKDOWN, TITLE_LOOKALIKES } from '../support/lookalikes.js';
import { CAPTURES, describeWithCaptures, openCapture, rebuildPage } from './captures.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

/** In the page: the notice the pack reads now, if any. */
function notice(pack: PagePack): string | null {
  const found = (window.__chatbridge as Helpers).blocker(pack);
  return found && `${found.kind}: ${found.text}`;
}

/** In the page: `html` at the end of the last answer; false when the pack finds none. */
function intoLastAnswer([pack, html]: [PagePack, string]): boolean {
  const h = window.__chatbridge as Helpers;
  const last = h.turns(pack).at(-1);
  if (!last) return false;
  (h.answerParts(pack, last)[0] ?? last).insertAdjacentHTML('beforeend', html);
  return true;
}

/**
 * In the page: `title` opening each of the person's turns (before its own words), and as
 * every chat title the pack knows of (the tab keeps its own: these are other chats').
 */
function titled([pack, title]: [PagePack, string]): void {
  const h = window.__chatbridge as Helpers;
  const own = ((window as unknown as { __ownWords?: WeakMap<Node, string> }).__ownWords ??= new WeakMap());
  const firstWords = (root: Element) => document.createTreeWalker(root, NodeFilter.SHOW_TEXT, { acceptNode: (t) => (t.textContent!.trim() ? 1 : 3) }).nextNode();
  for (const turn of h.userTurns(pack)) {
    const words = firstWords(turn);
    if (!words) continue;
    if (!own.has(words)) own.set(words, words.textContent ?? '');
    words.textContent = `${title}\n${own.get(words)}`;
  }
  for (const cue of pack.chatTitle ?? []) {
    for (const place of Array.from(document.querySelectorAll(cue.css))) {
      const words = firstWords(place);
      if (words) words.textContent = title;
      else place.append(title);
    }
  }
}

describeWithCaptures('the real captured pages, with lookalike notices in the conversation', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await takeTestBrowser();
  });
  afterAll(async () => giveBackTestBrowser(browser));
  const html = renderMarkdown(LOOKALIKE_MARKDOWN);

  for (const capture of CAPTURES) {
    for (const rebuilt of [false, true]) {
      it(`${capture.file}${rebuilt ? ', test ids renamed and classes hashed at once' : ''}: the notices read as before`, async () => {
        const pack = PROVIDER_SITES[capture.provider].page;
        const { page, close } = await openCapture(browser, capture);
        try {
          if (rebuilt) await page.evaluate(rebuildPage);
          const before = await page.evaluate(notice, pack);
          expect(await page.evaluate(intoLastAnswer, [pack, html] as [PagePack, string]), 'a last answer to hold them').toBe(true);
          expect(await page.evaluate(notice, pack), 'with the lookalikes in the last answer').toBe(before);
          for (const title of TITLE_LOOKALIKES) {
            await page.evaluate(titled, [pack, title] as [PagePack, string]);
            expect(await page.evaluate(notice, pack), `titled "${title}"`).toBe(before);
          }
          // Beside the conversation instead, the same markup is a notice to the pack.
          await page.evaluate((markup) => document.body.insertAdjacentHTML('beforeend', `<main>${markup}</main>`), html);
          expect(await page.evaluate(notice, pack), 'the lookalikes outside the conversation').not.toBe(before);
        } finally {
          await close();
        }
      });
    }
  }
});
