/**
 * Where the agent clicks Send at once (page-helpers/path.ts `clickPoint`), on markup of its
 * own in real Chromium: the centre of a button in view with nothing on top, through an open
 * shadow root; nothing for a button covered by a layer, scrolled out of view, or of no size,
 * which the flow leaves to Playwright's careful click.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHelpersPage } from '../support/helpers-page.js';

let close = async () => {};
let page: Page;
beforeAll(async () => {
  ({ page, close } = await openHelpersPage());
}, 30_000);
afterAll(() => close());

const pointOf = (selector: string) =>
  page.evaluate((s) => {
    const host = document.querySelector('#host');
    const el = document.querySelector(s) ?? host?.shadowRoot?.querySelector(s);
    return window.__chatbridge!.clickPoint(el!);
  }, selector);

describe('the point a click on Send goes to at once', () => {
  it('is the centre of a button in view with nothing on top, and a click there presses it', async () => {
    await page.setContent(`<button id="send" style="position:absolute; left:100px; top:200px; width:40px; height:30px" onclick="this.dataset.pressed='yes'"><svg width="16" height="16"><path d="M0 0h16v16z"/></svg></button>`);
    const point = await pointOf('#send');
    expect(point).toEqual({ x: 120, y: 215 });
    await page.mouse.click(point!.x, point!.y);
    expect(await page.getAttribute('#send', 'data-pressed')).toBe('yes');
  });

  it('is found through an open shadow root', async () => {
    await page.setContent(`<div id="host"></div>`);
    await page.evaluate(() => {
      const root = document.querySelector('#host')!.attachShadow({ mode: 'open' });
      root.innerHTML = `<button id="send" style="width:40px; height:30px">Send</button>`;
    });
    expect(await pointOf('#send')).not.toBeNull();
  });

  it('is none for a button under a layer, out of view, or of no size', async () => {
    await page.setContent(`
      <button id="covered" style="position:absolute; left:10px; top:10px; width:40px; height:30px">Send</button>
      <div style="position:fixed; left:0; top:0; width:100px; height:100px; background:#0008"></div>
      <button id="below" style="position:absolute; left:10px; top:5000px; width:40px; height:30px">Send</button>
      <button id="empty" style="position:absolute; left:300px; top:10px; width:0; height:0; padding:0; border:0"></button>`);
    expect(await pointOf('#covered')).toBeNull();
    expect(await pointOf('#below')).toBeNull();
    expect(await pointOf('#empty')).toBeNull();
  });
});
