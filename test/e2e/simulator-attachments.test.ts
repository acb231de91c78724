/**
 * The simulated sites take files as their real sites do (issue 32, sim-markup.md), driven
 * directly with Playwright, no ChatBridge: each site's own file control, busy then finished
 * chips, Send held while a file uploads, the site's refusals in its own notice, drop and
 * paste, and an answer that lists what the send carried, byte for byte.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentLine } from '../../agents/simulator/answer.js';
import { FILE_RULES } from '../../agents/simulator/file-rules.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import type { Provider } from '../../main/core/providers.js';
import { openSimPage, type SimPage } from '../support/sim-page.js';
import { until } from '../support/until.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

interface TestFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
/** The image uploads slowly, so its chip can be seen busy and Send held meanwhile. */
const image: TestFile = { name: 'photo[[sim:upload-ms=2000]].png', mimeType: 'image/png', buffer: PNG };
const text: TestFile = { name: 'notes-ünï.txt', mimeType: 'text/plain', buffer: Buffer.from('Grüße — naïve ✓ 日本語\n', 'utf8') };
const binary: TestFile = { name: 'random.pdf', mimeType: 'application/pdf', buffer: randomBytes(300 * 1024) };
const failing: TestFile = { name: 'broken[[sim:upload-fail]].txt', mimeType: 'text/plain', buffer: Buffer.from('never kept') };
/** Over the limit the tests give the sites (LIMIT), so no huge file is needed. */
const LIMIT = 512 * 1024;
const large: TestFile = { name: 'large.pdf', mimeType: 'application/pdf', buffer: randomBytes(LIMIT + 1) };

const line = (f: TestFile) => attachmentLine({ name: f.name, bytes: f.buffer.length, sha256: createHash('sha256').update(f.buffer).digest('hex') });

/** Where each site's controls are, as sim-markup.md fixes them (default layouts). */
const SITE: Record<Provider, { input: string | null; chip: string; notice: string; composer: string; send: string; disabled: (send: Element) => boolean }> = {
  chatgpt: {
    input: 'form input[type=file][multiple]:not([accept])',
    chip: 'form [role=group][class~="group/file-tile"]',
    notice: '[role=alert][data-testid=toast]',
    composer: '[data-composer-markdown][role=textbox], #prompt-textarea',
    send: 'form button[type=submit], form [data-testid=send-button]',
    disabled: (b) => (b as HTMLButtonElement).disabled,
  },
  claude: {
    input: 'fieldset input[type=file][data-testid=file-upload]#chat-input-file-upload-onpage',
    chip: '[data-testid=file-thumbnail]',
    notice: '[data-alert-band-wrapper=true] [role=status]',
    composer: '[data-testid=chat-input]',
    send: '[data-testid=chat-input-send]',
    disabled: (b) => (b as HTMLButtonElement).disabled,
  },
  gemini: {
    input: null,
    chip: '.attachment-preview-wrapper uploader-file-preview',
    notice: '.cdk-overlay-container simple-snack-bar .mat-mdc-snack-bar-label',
    composer: 'div.ql-editor',
    send: 'button.send-button.submit',
    disabled: (b) => b.getAttribute('aria-disabled') === 'true',
  },
  deepseek: {
    input: 'input[type=file][multiple][accept]',
    chip: '.ds-attachment',
    notice: '.ds-toast[role=alert]',
    composer: 'textarea[name=search], textarea#chat-input',
    send: 'input[type=file] + div[role=button]',
    disabled: (b) => b.getAttribute('aria-disabled') === 'true',
  },
  qwen: {
    input: '.message-input-container-area .mode-select input#filesUpload[type=file][multiple]',
    chip: '.fileitem-btn',
    notice: '.ant-message-notice-content[role=alert]',
    composer: 'textarea.message-input-textarea',
    send: 'button.send-button',
    disabled: (b) => (b as HTMLButtonElement).disabled,
  },
  perplexity: {
    input: 'input[type=file][multiple][accept]',
    chip: '[data-testid=file-chip]',
    notice: '[role=alert][data-testid=toast]',
    composer: '#ask-input',
    send: '[data-testid=submit-button]',
    disabled: (b) => (b as HTMLButtonElement).disabled,
  },
};

const PROVIDERS = Object.keys(SITE) as Provider[];

describe('simulated sites take files', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await takeTestBrowser();
  });
  afterAll(async () => giveBackTestBrowser(browser));

  /** Puts `files` through the site's own file control (Gemini: its menu item, then the chooser). */
  const choose = async (sp: SimPage, provider: Provider, files: TestFile[]) => {
    const input = SITE[provider].input;
    if (input) return sp.page.setInputFiles(input, files);
    // Gemini has no input until asked: the menu item makes one and opens its chooser.
    await sp.page.click('button.upload-card-button[aria-label="Open upload file menu"]');
    const [chooser] = await Promise.all([sp.page.waitForEvent('filechooser'), sp.page.click('[role=menuitem][data-test-id=local-images-files-uploader-button]')]);
    await chooser.setFiles(files);
  };

  const sendDisabled = (page: Page, provider: Provider) => page.locator(SITE[provider].send).evaluate(SITE[provider].disabled);

  const typeInto = async (page: Page, provider: Provider, prompt: string) => {
    await page.locator(SITE[provider].composer).click();
    await page.keyboard.insertText(prompt);
  };

  /** Sends what the composer holds and resolves with the send the site logged and the page's text once answered. */
  const sendAndRead = async (sp: SimPage, provider: Provider) => {
    const before = sp.sim.log.sends.length;
    await sp.page.locator(SITE[provider].send).click();
    await until(() => sp.sim.log.sends.length > before && sp.sim.log.finishes.length > 0 && sp.sim.log.finishes.length >= sp.sim.log.sends.length, 10_000, `${provider} to answer`);
    return { send: sp.sim.log.sends.at(-1)!, text: await sp.page.locator('body').innerText() };
  };

  for (const provider of PROVIDERS) {
    it(`${provider}: refuses in its own words, holds Send while uploading, and answers with each file byte for byte`, async () => {
      const sp = await openSimPage(browser, provider, { look: { fileLimits: { maxBytes: LIMIT } } });
      const { page, sim } = sp;
      const site = SITE[provider];
      const words = FILE_RULES[provider].words;
      try {
        // A failed upload: the site's words in its notice, no chip, nothing sent.
        await choose(sp, provider, [failing]);
        await expect.poll(() => page.locator(site.notice).last().textContent()).toBe(words.failed(failing.name));
        expect(await page.locator(site.chip).count()).toBe(0);
        // Over the size limit: refused in the site's words, naming the limit.
        await choose(sp, provider, [large]);
        await expect.poll(() => page.locator(site.notice).last().textContent()).toBe(words.tooLarge(large.name, LIMIT));
        expect(await page.locator(site.chip).count()).toBe(0);
        expect(sim.log.uploads.map((u) => [u.name, u.state])).toEqual([
          [failing.name, 'refused'],
          [large.name, 'refused'],
        ]);
        expect(sim.log.sends).toEqual([]);

        // Three files: the slow image's chip busy with a progress bar, Send held though there is text.
        // Send is read first and the busy chip after, so the chip still busy proves Send was held while it was.
        await typeInto(page, provider, 'Read these [[sim:ms=60]]');
        await choose(sp, provider, [image, text, binary]);
        const busy = page.locator(`${site.chip}[aria-busy=true]`);
        await expect.poll(() => busy.count()).toBe(1);
        const heldWhileBusy = await sendDisabled(page, provider);
        expect(await busy.evaluateAll((chips) => chips.map((c) => [c.getAttribute('title'), c.querySelectorAll('[role=progressbar]').length]))).toEqual([[image.name, 1]]);
        expect(heldWhileBusy).toBe(true);
        await expect.poll(() => busy.count(), { timeout: 15_000 }).toBe(0);
        expect(await page.locator(`${site.chip} [role=progressbar]`).count()).toBe(0);
        expect(await page.locator(site.chip).evaluateAll((chips) => chips.map((c) => c.getAttribute('title')))).toEqual([image.name, text.name, binary.name]);
        expect(await sendDisabled(page, provider)).toBe(false);
        expect(sim.log.sends).toEqual([]);

        const { send, text: shown } = await sendAndRead(sp, provider);
        expect(send.files!.map((f) => attachmentLine(f))).toEqual([image, text, binary].map(line));
        for (const f of [image, text, binary]) expect(shown).toContain(line(f).slice(2));
        expect(await page.locator(site.chip).count()).toBe(0);
        expect(sp.errors).toEqual([]);
      } finally {
        await sp.close();
      }
    }, 30_000);
  }

  // Every other layout shows the same controls: a file through them reaches the answer.
  for (const provider of PROVIDERS) {
    for (const layout of SIM_SITES[provider].layouts.slice(1)) {
      it(`${provider} ${layout}: the same controls take a file to the answer`, async () => {
        const sp = await openSimPage(browser, provider, { look: { layout } });
        try {
          if (provider === 'chatgpt') {
            // The app-shell layouts' generic input has no id (the 2026-02 capture); the image-only inputs sit outside the form.
            expect(await sp.page.locator(SITE.chatgpt.input!).getAttribute('id')).toBe(layout.startsWith('app-shell') ? null : 'upload-files');
            expect(await sp.page.locator('form #upload-photos, form #upload-camera').count()).toBe(0);
            expect(await sp.page.locator('#upload-photos[accept="image/*"], #upload-camera[accept="image/*"][capture=environment]').count()).toBe(2);
          }
          await choose(sp, provider, [text, binary]);
          await expect.poll(() => sp.page.locator(`${SITE[provider].chip}:not([aria-busy])`).count(), { timeout: 15_000 }).toBe(2);
          await typeInto(sp.page, provider, `Layout ${layout} [[sim:ms=60]]`);
          const { send, text: shown } = await sendAndRead(sp, provider);
          expect(send.files!.map((f) => attachmentLine(f))).toEqual([text, binary].map(line));
          expect(shown).toContain(line(binary).slice(2));
          expect(sp.errors).toEqual([]);
        } finally {
          await sp.close();
        }
      });
    }
  }

  it('claude: refuses a type it does not take and more files than a message takes, in its words; its input is the bottom one once the chat is open', async () => {
    const sp = await openSimPage(browser, 'claude', { look: { fileLimits: { perMessage: 2 } } });
    const words = FILE_RULES.claude.words;
    try {
      const archive: TestFile = { name: 'bundle.zip', mimeType: 'application/zip', buffer: randomBytes(64) };
      await sp.page.setInputFiles(SITE.claude.input!, [archive]);
      await expect.poll(() => sp.page.locator(SITE.claude.notice).textContent()).toBe(words.wrongType(archive.name));
      const three = ['a.txt', 'b.txt', 'c.txt'].map((name) => ({ ...text, name }));
      await sp.page.setInputFiles(SITE.claude.input!, three);
      await until(() => sp.sim.log.uploads.filter((u) => u.state === 'stored').length === 2, 15_000, 'two files stored');
      const refused = sp.sim.log.uploads.filter((u) => u.state === 'refused' && u.name !== archive.name);
      expect(refused).toHaveLength(1);
      expect(refused[0]!.refusal).toBe(words.tooMany(refused[0]!.name, 2));
      await expect.poll(() => sp.page.locator(SITE.claude.notice).textContent()).toBe(words.tooMany(refused[0]!.name, 2));
      await expect.poll(() => sp.page.locator(`${SITE.claude.chip}:not([aria-busy])`).count()).toBe(2);
      await typeInto(sp.page, 'claude', 'Two of three [[sim:ms=60]]');
      const { send } = await sendAndRead(sp, 'claude');
      expect(send.files).toHaveLength(2);
      expect(await sp.page.locator('input[type=file]#chat-input-file-upload-bottom[data-testid=file-upload]').count()).toBe(1);
    } finally {
      await sp.close();
    }
  });

  it('perplexity: a cancel during an upload drops the file; the chip says Remove once finished', async () => {
    const sp = await openSimPage(browser, 'perplexity');
    try {
      const slow: TestFile = { ...text, name: 'slow[[sim:upload-ms=3000]].txt' };
      await sp.page.setInputFiles(SITE.perplexity.input!, [slow]);
      await sp.page.locator(`[data-testid=file-chip][title="${slow.name}"][aria-busy=true] button[aria-label="Cancel upload"]`).click();
      await until(() => sp.sim.log.uploads[0]?.state === 'cancelled', 15_000, 'the upload to be cancelled');
      expect(await sp.page.locator('[data-testid=file-chip]').count()).toBe(0);
      await sp.page.setInputFiles(SITE.perplexity.input!, [text]);
      await sp.page.locator(`[data-testid=file-chip][title="${text.name}"]:not([aria-busy]) button[aria-label="Remove ${text.name}"]`).click();
      expect(await sp.page.locator('[data-testid=file-chip]').count()).toBe(0);
      await until(() => sp.sim.log.uploads[1]?.state === 'removed', 15_000, 'the file to be removed');
      expect(sp.sim.log.sends).toEqual([]);
    } finally {
      await sp.close();
    }
  });

  /** Files made in the page, from the test's bytes, for a drop or a paste. */
  const inPage = (files: TestFile[]) => files.map((f) => ({ name: f.name, type: f.mimeType, base64: f.buffer.toString('base64') }));

  it('qwen: files dropped on the chat content are sent', async () => {
    const sp = await openSimPage(browser, 'qwen');
    try {
      await sp.page.locator('#dropzone-container.chat-content').evaluate((zone, files) => {
        const data = new DataTransfer();
        for (const f of files) data.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
      }, inPage([text, binary]));
      await expect.poll(() => sp.page.locator('.fileitem-btn:not([aria-busy])').count()).toBe(2);
      await typeInto(sp.page, 'qwen', 'Dropped [[sim:ms=60]]');
      const { send } = await sendAndRead(sp, 'qwen');
      expect(send.files!.map((f) => attachmentLine(f))).toEqual([text, binary].map(line));
    } finally {
      await sp.close();
    }
  });

  it('claude: a file pasted into the composer is sent, the prompt typed beside it', async () => {
    const sp = await openSimPage(browser, 'claude');
    try {
      await sp.page.locator(SITE.claude.composer).evaluate((editor, files) => {
        const data = new DataTransfer();
        for (const f of files) data.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
        editor.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      }, inPage([image]));
      await expect.poll(() => sp.page.locator('[data-testid=file-thumbnail]:not([aria-busy])').count(), { timeout: 15_000 }).toBe(1);
      await typeInto(sp.page, 'claude', 'Pasted [[sim:ms=60]]');
      const { send } = await sendAndRead(sp, 'claude');
      expect(send.prompt).toBe('Pasted [[sim:ms=60]]');
      expect(send.files!.map((f) => attachmentLine(f))).toEqual([line(image)]);
    } finally {
      await sp.close();
    }
  });
});
