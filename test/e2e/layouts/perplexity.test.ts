/**
 * Perplexity's layouts beside the default: the core provider suite on each, then what the
 * simulated page shows that the pack has to cope with (the final-text wrapper that comes
 * only after streaming, icon-only copy buttons on the question and the answer, the code
 * language outside `<code>`).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { simulatedAnswer } from '../../../agents/simulator/answer.js';
import { startE2E, type E2E } from '../../support/e2e.js';
import { openSimPage, typeAndPress, type SimPage } from '../../support/sim-page.js';
import { watchFirstSight } from '../../support/first-sight.js';
import { providerSuite } from '../provider-suite.js';
import { describeBeside, inOrder } from '../../support/beside.js';
import { giveBackTestBrowser, takeTestBrowser } from '../../support/test-browser.js';

providerSuite('perplexity', { layout: 'markdown-content' }, 'core');

const interceptClipboard = () =>
  Object.defineProperty(navigator.clipboard, 'writeText', {
    value: (text: string) => {
      (window as unknown as { copied: string }).copied = text;
      return Promise.resolve();
    },
  });
const copied = (s: SimPage) => s.page.evaluate(() => (window as unknown as { copied?: string }).copied);
const COPY_ICON = 'button:has(use[*|href="#pplx-icon-copy"])';

describeBeside('the simulated Perplexity page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await takeTestBrowser();
  });
  afterAll(async () => giveBackTestBrowser(browser));
  let s: SimPage;
  afterAll(async () => s?.close());

  describe.sequential('layout final-text', () => {
    beforeAll(async () => {
      s = await openSimPage(browser, 'perplexity', { initScript: interceptClipboard, viewport: { width: 1280, height: 720 } });
    }, 30_000);

    it('streams a bare prose block, then renders the answer anew inside the final-text wrapper', async ({ expect }) => {
      const streaming = await watchFirstSight(s.page, '.prose[data-renderer="lm"]', ['[data-workflow-final-text]', '[id^="markdown-content-"]']);
      await typeAndPress(s, '#ask-input', 'Slowly [[sim:ms=1500]]');
      await s.page.waitForSelector('[data-workflow-final-text] > .prose[data-renderer="lm"]');
      expect(await streaming()).toMatchObject({ counts: { '[data-workflow-final-text]': 0, '[id^="markdown-content-"]': 0 }, stillThere: false });
      expect(await s.page.locator('[data-workflow-final-text] + [data-workflow-text-footer]').count()).toBe(1);
    });

    it('has icon-only copy buttons on the question and in the answer footer, each copying its own', async ({ expect }) => {
      const all = s.page.locator(COPY_ICON);
      // The question's, the footer's, and each code block's own.
      expect(await all.count()).toBe(4);
      for (const b of await all.all()) {
        if ((await b.getAttribute('data-testid')) === 'copy-code-button') continue;
        expect(await b.getAttribute('aria-label')).toBeNull();
        expect((await b.textContent())!.trim()).toBe('');
      }
      // The question's, before its title block.
      await s.page.locator(`:has(+ .group\\/title) ${COPY_ICON}`).click({ force: true });
      expect(await copied(s)).toBe('Slowly [[sim:ms=1500]]');
      await s.page.locator(`[data-workflow-text-footer] ${COPY_ICON}`).click();
      expect(await copied(s)).toBe(simulatedAnswer('Perplexity', 'perplexity', 'Slowly [[sim:ms=1500]]', 1));
    });

    it('puts the code language in the indicator, outside <code>', async ({ expect }) => {
      const pre = s.page.locator('[data-workflow-final-text] pre').nth(1);
      expect(await pre.locator('[data-testid="code-language-indicator"]').textContent()).toBe('python');
      expect(await pre.locator('code').getAttribute('class')).toBeNull();
      expect(await pre.locator('code').textContent()).toBe('def answer_1():\n    return "perplexity turn 1"');
      await pre.locator('button[data-testid="copy-code-button"][aria-label="Copy code"]').click();
      expect(await copied(s)).toBe('def answer_1():\n    return "perplexity turn 1"');
    });
  });

  describe.sequential('layout markdown-content', () => {
    beforeAll(async () => {
      await s?.close();
      s = await openSimPage(browser, 'perplexity', { look: { layout: 'markdown-content' }, viewport: { width: 1280, height: 720 } });
    }, 30_000);

    it('anchors the answer in markdown-content from the first token, deep in its column, without the workflow attributes', async ({ expect }) => {
      const row = '.gap-y-sm.flex.flex-col > .flex.items-center.justify-between';
      const streaming = await watchFirstSight(s.page, '.gap-y-sm.flex.flex-col > div > div > .min-w-0 > div#markdown-content-0 .prose > [data-renderer="lm"]', [row]);
      await typeAndPress(s, '#ask-input', 'Slowly [[sim:ms=1500]]');
      await s.page.waitForSelector(row);
      expect(await streaming()).toMatchObject({ counts: { [row]: 0 }, stillThere: true });
      expect(await s.page.locator('[data-workflow-final-text], [data-workflow-text-footer]').count()).toBe(0);
      // As on the real pages: the row follows the answer's box, its Copy labelled.
      expect(await s.page.locator(`:has(> * #markdown-content-0) + .flex.items-center.justify-between ${COPY_ICON}[aria-label="Copy"]`).count()).toBe(1);
    });
  });
});

describeBeside('ChatBridge on Perplexity (layout final-text)', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E('perplexity', 1);
  }, 60_000);
  afterAll(async () => e?.stop());

  inOrder("copies the answer through its icon-only control, not the question's", async ({ expect }) => {
    const prompt = 'Which copy button?';
    const r = await e.api('POST', '/v1/completions', { body: { provider: 'perplexity', prompt } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.response).toBe(simulatedAnswer('Perplexity', 'perplexity', prompt, 1));
  });
});
