/**
 * The packs' variants held to the real pages: the model picker each pack names is found on
 * every capture that shows one, DeepSeek's DeepThink and Search toggles are read as the
 * variants they are (both on in the capture), and ChatGPT's answers say which model wrote them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findBrowser } from '../../agents/browser/find-browser.js';
import { FLOW_LIMITS } from '../../agents/providers/flow.js';
import { PROVIDER_SITES } from '../../agents/providers/index.js';
import { modelUsedOf, offeredVariants } from '../../agents/providers/variant-choice.js';
import { CAPTURES, describeWithCaptures, openCapture, REAL_PAGES } from './captures.js';
import type { PageCue } from '../../agents/providers/cues.js';

describeWithCaptures('the packs’ variants, against the real pages', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: findBrowser() });
  });
  afterAll(async () => browser?.close());

  for (const capture of CAPTURES.filter((c) => ['chatgpt', 'claude', 'gemini'].includes(c.provider))) {
    it(`${capture.file}: the model picker, by the pack's first cue`, async () => {
      const real = await openCapture(browser, capture);
      try {
        const which = await real.page.evaluate((cues: readonly PageCue[]) => window.__chatbridge!.which(cues), PROVIDER_SITES[capture.provider].variants.picker);
        expect(which).toBe(0);
      } finally {
        await real.close();
      }
    });
  }

  for (const capture of CAPTURES.filter((c) => c.provider === 'chatgpt')) {
    it(`${capture.file}: the last answer's model`, async () => {
      const slugs = [...readFileSync(join(REAL_PAGES, capture.file), 'utf8').matchAll(/data-message-model-slug="([^"]+)"/g)].map((m) => m[1]);
      const real = await openCapture(browser, capture);
      try {
        const site = PROVIDER_SITES.chatgpt;
        // Every turn on the page is history: the model read is the last turn's.
        await real.page.evaluate((pack) => window.__chatbridge!.markTurns(pack), site.page);
        expect(await modelUsedOf(real.page, site)).toBe(slugs.at(-1));
      } finally {
        await real.close();
      }
    });
  }

  it('DeepSeek 2026-05-21: DeepThink and Search, both on', async () => {
    const real = await openCapture(browser, CAPTURES.find((c) => c.provider === 'deepseek')!);
    try {
      expect(await offeredVariants(real.page, PROVIDER_SITES.deepseek, { ms: FLOW_LIMITS.controlsMs })).toEqual(['deepthink', 'search', 'deepthink-search']);
      const selected = PROVIDER_SITES.deepseek.variants.selected;
      expect(await real.page.evaluate((css) => Array.from(document.querySelectorAll(css)).length, `.ds-toggle-button:is(${selected})`)).toBe(2);
    } finally {
      await real.close();
    }
  });
});
