import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { pageWorld } from '../../agents/providers/page-world.js';
import { DebuggerTransport } from '../../main/electron/cdp-transport.js';
import { startChromiumPage, type ChromiumPage } from './chromium-page-debugger.js';

const VERSION = { product: 'Chrome/140.0.0.0', userAgent: 'Mozilla/5.0 Chrome/140.0.0.0' };

describe('DebuggerTransport: Playwright through a page debugger, no debugging port', () => {
  let chromiumPage: ChromiumPage | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await chromiumPage?.stop();
    server?.close();
    chromiumPage = undefined;
    server = undefined;
  });

  async function site(): Promise<string> {
    server = createServer((req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(req.url === '/next' ? '<title>Next</title><p id="where">next page</p>' : '<title>Home</title><textarea id="composer"></textarea>');
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("gives Playwright the page: navigation, the helpers' own world, typing, evaluation", async () => {
    chromiumPage = await startChromiumPage();
    const url = await site();
    const browser = await chromium.connectOverCDP(new DebuggerTransport(chromiumPage.debugger, VERSION));
    const [context] = browser.contexts();
    const page = context!.pages()[0] ?? (await context!.waitForEvent('page'));
    await page.goto(url);
    expect(await page.title()).toBe('Home');
    // The helpers' world through a second session of the same debugger: there for the
    // helpers, absent from the page's own world, and found again after a navigation.
    const world = pageWorld(page);
    expect(await world.run((h) => typeof h.find, undefined)).toBe('function');
    expect(await page.evaluate(() => typeof window.__chatbridge)).toBe('undefined');
    const composer = await world.element(() => document.querySelector('#composer'), undefined);
    await composer!.fill('typed through a handle of the world');
    expect(await page.locator('#composer').inputValue()).toBe('typed through a handle of the world');
    await page.locator('#composer').fill('hello from the agent');
    expect(await page.locator('#composer').inputValue()).toBe('hello from the agent');
    await page.goto(`${url}/next`);
    await expect.poll(() => page.locator('#where').textContent()).toBe('next page');
    expect(page.url()).toBe(`${url}/next`);
    expect(await world.run(() => document.querySelector('#where')?.textContent, undefined)).toBe('next page');
    await browser.close();
  });

  it("gives a view connected after another's world is in use handles in its own world too", async () => {
    chromiumPage = await startChromiumPage();
    const second = await startChromiumPage();
    try {
      const url = await site();
      const views = [];
      // One after the other, as agents' views open: the second connects once the first has used its world.
      for (const view of [chromiumPage, second]) {
        const browser = await chromium.connectOverCDP(new DebuggerTransport(view.debugger, VERSION));
        const [context] = browser.contexts();
        const page = context!.pages()[0] ?? (await context!.waitForEvent('page'));
        await page.goto(url);
        const composer = await pageWorld(page).element(() => document.querySelector('#composer'), undefined);
        await composer!.fill('found from the world');
        expect(await page.locator('#composer').inputValue()).toBe('found from the world');
        views.push(browser);
      }
      for (const browser of views) await browser.close();
    } finally {
      await second.stop();
    }
  });

  it('refuses what only the app may do (new pages), and says when the page goes away', async () => {
    chromiumPage = await startChromiumPage();
    const browser = await chromium.connectOverCDP(new DebuggerTransport(chromiumPage.debugger, VERSION));
    const [context] = browser.contexts();
    await expect(context!.newPage()).rejects.toThrow(/not available on an embedded agent view/);
    const disconnected = new Promise((r) => browser.once('disconnected', r));
    await chromiumPage.closePage();
    await disconnected;
    expect(browser.isConnected()).toBe(false);
  });
});
