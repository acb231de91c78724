/**
 * The clipboard hook (copy-hook.ts) as the helpers set it from their own world, in the call
 * that finds an answer finished (`armCopyHook`): it catches the Copy pressed next with no
 * round trip to set it first, it is taken away after, and a document whose channel Node has
 * not made yet says it is not set, so the flow sets it itself. A channel made twice at once
 * still has one hook. Real Chromium, the helpers' world as the agents make it
 * (page-world.ts), a page with a Copy of its own.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageWorld, type PageWorld } from '../../agents/providers/page-world.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

/** A page whose Copy writes its answer through the clipboard API, as the sites' do; the point to press it at. */
const PAGE = `<button id="copy" style="position:absolute;left:20px;top:20px;width:80px;height:30px"
  onclick="navigator.clipboard.writeText('The answer, as Markdown.')">Copy</button>`;
const COPY_AT = { x: 60, y: 35 };

describe('the clipboard hook set by the helpers', () => {
  let context: BrowserContext;
  let page: Page;
  let world: PageWorld;
  beforeAll(async () => {
    const browser = await takeTestBrowser();
    context = await browser.newContext();
    page = await context.newPage();
    world = pageWorld(page);
    // Served from localhost: a secure context, where the page has `navigator.clipboard` as the sites do.
    await context.route('http://localhost/**', (route) => route.fulfill({ contentType: 'text/html', body: PAGE }));
    await page.goto('http://localhost/chat');
  });
  afterAll(async () => {
    await context.close();
    await giveBackTestBrowser(context.browser());
  });

  /** The own properties of the page's `navigator.clipboard`, as the page's scripts see them. */
  const clipboardOwn = () => page.evaluate(() => Object.getOwnPropertyNames(navigator.clipboard));

  it('catches the Copy pressed next, and leaves the page as it was', async () => {
    await world.warm();
    const armed = await world.run((h) => {
      h.clearClipboard();
      return h.armCopyHook();
    }, undefined);
    expect(armed).toBe(true);
    expect(await clipboardOwn()).toEqual(['writeText', 'write']);
    const copied = await world.withCopyHook(async () => {
      const caught = world.run((h, ms) => h.copied(ms), 2_000);
      await world.press(COPY_AT);
      return caught;
    }, true);
    expect(copied).toBe('The answer, as Markdown.');
    // Taken away once the copy is read; the page's own clipboard never saw it.
    await expect.poll(clipboardOwn).toEqual([]);
  });

  it('is set once and taken away whole, though the channel was made twice at once', async () => {
    await page.goto('http://localhost/chat-again');
    await Promise.all([world.warm(), world.warm()]);
    const copied = await world.withCopyHook(async () => {
      const caught = world.run((h, ms) => h.copied(ms), 2_000);
      await world.press(COPY_AT);
      return caught;
    });
    expect(copied).toBe('The answer, as Markdown.');
    await expect.poll(clipboardOwn).toEqual([]);
  });

  it('says it is not set in a document whose channel Node has not made yet', async () => {
    await page.goto('http://localhost/another-chat');
    expect(await world.run((h) => h.armCopyHook(), undefined)).toBe(false);
    expect(await clipboardOwn()).toEqual([]);
  });
});
