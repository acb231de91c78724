/**
 * The page helpers that watch a job's files (page-helpers/attachments.ts), on markup of their
 * own in real Chromium: only what came after `markAttachments` counts (an older chip, a
 * notice already shown), a notice whose words change counts again, a chip is busy while a
 * busy cue finds it or something in it, the file input is found hidden, and the chips taken
 * as the caller's are never the paste card, while a real paste card still is.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_SITES } from '../../agents/providers/index.js';
import type { PagePack } from '../../agents/providers/site.js';
import { openHelpersPage } from '../support/helpers-page.js';

let close = async () => {};
let page: Page;
beforeAll(async () => {
  ({ page, close } = await openHelpersPage());
}, 30_000);
afterAll(() => close());

const pack: PagePack = PROVIDER_SITES.chatgpt.page;
const seen = () => page.evaluate((p) => window.__chatbridge!.attachmentsSeen(p), pack);

describe('the caller’s files in the page', () => {
  it('are what came after the mark: chips, busy or done, and notices new or reworded', async () => {
    await page.setContent(`
      <div role="alert" data-testid="toast">Unable to upload old.txt</div>
      <form>
        <div class="hidden"><input type="file" multiple id="upload-files" style="display:none"></div>
        <div role="group" class="group/file-tile" aria-label="old.txt" title="old.txt">old.txt</div>
        <div contenteditable="true">prompt</div>
      </form>`);
    const input = await page.evaluate((p) => window.__chatbridge!.fileInput(p)?.id ?? null, pack);
    expect(input).toBe('upload-files');
    await page.evaluate((p) => window.__chatbridge!.markAttachments(p), pack);
    expect(await seen()).toEqual({ chips: [], refusals: [], ownLeft: 0 });

    await page.evaluate(() => {
      const form = document.querySelector('form')!;
      form.insertAdjacentHTML(
        'beforeend',
        `<div role="group" class="group/file-tile" aria-label="a.png" title="a.png" aria-busy="true">a.png<div role="progressbar"></div><button aria-label="Remove file 1: a.png">x</button></div>
         <div role="group" class="group/file-tile" aria-label="b.txt">b…txt <span>TXT</span></div>`,
      );
    });
    expect(await seen()).toEqual({
      chips: [
        { title: 'a.png', label: 'a.png', text: 'a.png', busy: true },
        { title: '', label: 'b.txt', text: 'b…txt TXT', busy: false },
      ],
      refusals: [],
      ownLeft: 0,
    });
    // The old toast says something new: that is news.
    await page.evaluate(() => (document.querySelector('[data-testid="toast"]')!.textContent = 'Unable to upload a.png'));
    expect((await seen()).refusals).toEqual(['Unable to upload a.png']);
  });

  it('taken as the caller’s, are never the paste card; a paste card beside them still is', async () => {
    await page.setContent(`
      <form>
        <div role="group" class="group/file-tile" aria-label="Pasted markdown.md" title="Pasted markdown.md">Pasted markdown.md</div>
        <div contenteditable="true"></div>
      </form>`);
    await page.evaluate((p) => window.__chatbridge!.markAttachments(p), pack);
    // Before the caller's files are known, a chip named like a paste card is one.
    expect(await page.evaluate((p) => window.__chatbridge!.pasteCard(p)?.getAttribute('aria-label') ?? null, pack)).toBe('Pasted markdown.md');
    await page.evaluate(() => {
      document.querySelector('form > div')!.remove();
      document.querySelector('form')!.insertAdjacentHTML('afterbegin', '<div role="group" class="group/file-tile" aria-label="Pasted markdown.md" title="Pasted markdown.md">Pasted markdown.md</div>');
    });
    expect((await seen()).chips).toHaveLength(1);
    expect(await page.evaluate(() => window.__chatbridge!.claimChips([0]))).toBe(1);
    expect(await page.evaluate((p) => window.__chatbridge!.pasteCard(p), pack)).toBeNull();
    // The composer makes the prompt a file: that card is found, the caller's is not.
    await page.evaluate(() =>
      document.querySelector('form')!.insertAdjacentHTML('afterbegin', '<div data-testid="composer-attachment" role="group" aria-label="Pasted text.txt"><span>Pasted text.txt</span></div>'),
    );
    expect(await page.evaluate((p) => window.__chatbridge!.pasteCard(p)?.getAttribute('aria-label') ?? null, pack)).toBe('Pasted text.txt');
    expect((await seen()).ownLeft).toBe(1);
    await page.evaluate(() => document.querySelector('[aria-label="Pasted markdown.md"]')!.remove());
    expect((await seen()).ownLeft).toBe(0);
  });
});
