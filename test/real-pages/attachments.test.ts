/**
 * The packs' `attachments` cues against the real pages (issue 32): the file input the flow
 * sets is found wherever a capture has one (never ChatGPT's image-only inputs), Gemini's
 * upload menu opener is found where its page has no input, and Perplexity's pack takes the
 * types its input's accept list names. DeepSeek's capture of 2026-05-21 has no input (Expert
 * mode has none): its cues come from the research and the simulator, and here it finds none.
 * Each page is also read as a release that renamed its test ids and hashed its classes at
 * once would serve it: the input (or opener) is still found.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILT_IN_PACKS, PROVIDER_SITES } from '../../agents/providers/index.js';
import type { PagePack } from '../../agents/providers/site.js';
import { CAPTURES, describeWithCaptures, openCapture, REAL_PAGES, rebuildPage } from './captures.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

/** What each capture's file control is, as the flow finds it: the input's identity, or Gemini's opener; null: none in the page. */
const EXPECTED: Record<string, { input: string | null; opener?: true }> = {
  'chatgpt/ai-rag-document-assistant-2026-05-21.html': { input: 'form #upload-files' },
  'chatgpt/obsidian-ai-exporter-chat-simple-2026-02-27.html': { input: 'form input[multiple] without accept' },
  'claude/covai-ai-chat-exporter-2026-05-21.html': { input: 'file-upload' },
  'claude/ai-context-bridge-2026-04-29.html': { input: 'file-upload' },
  'gemini/ai-context-bridge-2026-04-29.html': { input: null, opener: true },
  'deepseek/covai-ai-chat-exporter-2026-05-21.html': { input: null },
  'qwen/covai-ai-chat-exporter-2026-05-21.html': { input: '#filesUpload' },
  'perplexity/covai-ai-chat-exporter-2026-05-21.html': { input: null },
  'perplexity/ai-context-bridge-2026-04-29.html': { input: 'accept of 94 endings' },
};

/** In the page: the file input the flow would set, told by what identifies it, and whether the opener shows. */
function lookAtControls(pack: PagePack): { input: string | null; inForm: boolean; imageOnly: boolean; opener: boolean; openerControls: string | null } {
  const h = window.__chatbridge!;
  const input = h.fileInput(pack) as HTMLInputElement | null;
  const opener = h.find(pack.attachOpener);
  let identity: string | null = null;
  if (input) {
    const accept = input.getAttribute('accept');
    if (input.getAttribute('data-testid')) identity = input.getAttribute('data-testid');
    else if (input.id) identity = `${input.closest('form') ? 'form ' : ''}#${input.id}`;
    else if (accept && accept.split(',').length > 50) identity = `accept of ${accept.split(',').length} endings`;
    else identity = `${input.closest('form') ? 'form ' : ''}input${input.multiple ? '[multiple]' : ''}${accept === null ? ' without accept' : ''}`;
  }
  return {
    input: identity,
    inForm: !!input?.closest('form'),
    imageOnly: /^image|capture/.test(`${input?.getAttribute('accept') ?? ''}${input?.hasAttribute('capture') ? 'capture' : ''}`) && !input?.id.startsWith('upload-files'),
    opener: opener !== null,
    openerControls: opener?.getAttribute('aria-controls') ?? null,
  };
}

describeWithCaptures('the packs’ attach controls, against the real pages', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await takeTestBrowser();
  });
  afterAll(async () => giveBackTestBrowser(browser));

  it('every capture is described here', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(CAPTURES.map((c) => c.file).sort());
  });

  for (const capture of CAPTURES) {
    const expected = EXPECTED[capture.file]!;
    it(`${capture.file}: ${expected.input ? `the file input (${expected.input})` : expected.opener ? 'the upload menu’s opener, no input' : 'no file input, as the page has none'}`, async () => {
      const site = PROVIDER_SITES[capture.provider];
      const { page, close } = await openCapture(browser, capture);
      try {
        // The flow looks for the opener once the page has shown its composer, well after the
        // load. A look at the load itself found none once, in a `.ci/run` on a loaded machine
        // (2026-11-30): this one allows the page up to 5 s. What in the static page settles
        // late is not known.
        if (expected.opener) {
          await page.waitForFunction((pack) => window.__chatbridge!.find(pack.attachOpener) !== null, site.page, { timeout: 5_000 }).catch(() => {});
        }
        const seen = await page.evaluate(lookAtControls, site.page);
        expect(seen.input).toBe(expected.input);
        expect(seen.imageOnly).toBe(false);
        if (capture.provider === 'chatgpt') expect(seen.inForm).toBe(true);
        expect(site.attachments?.via).toBe(expected.opener ? 'chooser' : 'input');
        if (expected.opener) {
          expect(seen.opener).toBe(true);
          expect(seen.openerControls).toBe('upload-file-menu');
        }
        // Renamed test ids and hashed classes: a logged-in page's control is still found (the
        // logged-out ChatGPT page's only generic input is image-only, which no other cue takes).
        if (expected.input === null && !expected.opener) return;
        if (capture.file.startsWith('chatgpt/ai-rag')) return;
        await page.evaluate(rebuildPage);
        const rebuilt = await page.evaluate(lookAtControls, site.page);
        expect(expected.opener ? rebuilt.opener : rebuilt.input !== null, 'rebuilt').toBe(true);
        expect(rebuilt.imageOnly).toBe(false);
      } finally {
        await close();
      }
    });
  }

  it('Perplexity’s pack takes exactly the types its input’s accept list names', () => {
    const html = readFileSync(join(REAL_PAGES, 'perplexity/ai-context-bridge-2026-04-29.html'), 'utf8');
    const accept = /<input[^>]*accept="([^"]+)"[^>]*type="file"/.exec(html)?.[1]?.split(',');
    expect(accept).toHaveLength(94);
    expect(BUILT_IN_PACKS.perplexity.attachments!.types.value).toEqual(accept);
  });
});
