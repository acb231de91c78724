/**
 * The packs' variants held to the real pages: the model picker each pack names is found on
 * every capture that shows one, DeepSeek's DeepThink and Search toggles are read as the
 * variants they are (both on in the capture), and the model each page names after the answer
 * is what a job's `model_used` says: ChatGPT's answer slugs (its picker's label where an
 * answer has none), the picker's label on Claude, Gemini and Qwen, the toggles on DeepSeek.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { flowContext } from '../../agents/providers/flow-context.js';
import { PROVIDER_SITES } from '../../agents/providers/index.js';
import { modelUsedOf, offeredVariants } from '../../agents/providers/variant-choice.js';
import { CAPTURES, describeWithCaptures, openCapture, REAL_PAGES, type Capture } from './captures.js';
import type { PageCue } from '../../agents/providers/cues.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

/** The Qwen capture of 2026-05-21, by where it is: openCapture needs no more (the captures table describes it in issue 31 §4). */
const QWEN = { provider: 'qwen', file: 'qwen/covai-ai-chat-exporter-2026-05-21.html' } as Capture;

/** What each page names as the model in force after its last answer (the captures' words are scrubbed to x and 0). */
const NAMED: Record<string, string | null> = {
  'claude/covai-ai-chat-exporter-2026-05-21.html': 'Xxxxxx 0.0 Xxxxxxxx',
  'claude/ai-context-bridge-2026-04-29.html': 'Xxxxxx 0.0 Xxxxxxxx',
  'gemini/ai-context-bridge-2026-04-29.html': 'Xxxxxx',
  'deepseek/covai-ai-chat-exporter-2026-05-21.html': 'DeepThink + Search',
  [QWEN.file]: 'Xxxx0.0-Xxxx',
  // Perplexity's pages show no mode radios: they name no mode.
  'perplexity/covai-ai-chat-exporter-2026-05-21.html': null,
  'perplexity/ai-context-bridge-2026-04-29.html': null,
};

describeWithCaptures('the packs’ variants, against the real pages', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await takeTestBrowser();
  });
  afterAll(async () => giveBackTestBrowser(browser));

  for (const capture of [...CAPTURES.filter((c) => ['chatgpt', 'claude', 'gemini'].includes(c.provider)), QWEN]) {
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
        expect(await modelUsedOf(flowContext(real.page, site))).toBe(slugs.at(-1));
        // Without the slugs (the app-shell build), the picker's label: "current model is 5.2", or nothing where it names none.
        await real.page.evaluate(() => document.querySelectorAll('[data-message-model-slug]').forEach((el) => el.removeAttribute('data-message-model-slug')));
        expect(await modelUsedOf(flowContext(real.page, site))).toBe(/current model is ([^"]+)"/.exec(readFileSync(join(REAL_PAGES, capture.file), 'utf8'))?.[1] ?? null);
      } finally {
        await real.close();
      }
    });
  }

  for (const [file, named] of Object.entries(NAMED)) {
    it(`${file}: the model named after the answer`, async () => {
      const capture = CAPTURES.find((c) => c.file === file) ?? QWEN;
      const real = await openCapture(browser, capture);
      try {
        expect(await modelUsedOf(flowContext(real.page, PROVIDER_SITES[capture.provider]))).toBe(named);
      } finally {
        await real.close();
      }
    });
  }

  it('DeepSeek 2026-05-21: DeepThink and Search, both on', async () => {
    const real = await openCapture(browser, CAPTURES.find((c) => c.provider === 'deepseek')!);
    try {
      expect(await offeredVariants(flowContext(real.page, PROVIDER_SITES.deepseek))).toEqual(['deepthink', 'search', 'deepthink-search']);
      const selected = PROVIDER_SITES.deepseek.variants.selected;
      expect(await real.page.evaluate((css) => Array.from(document.querySelectorAll(css)).length, `.ds-toggle-button:is(${selected})`)).toBe(2);
    } finally {
      await real.close();
    }
  });
});
