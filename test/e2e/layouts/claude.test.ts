/**
 * Claude's 2026 layouts (research/providers-live-2026.md, "Claude"): what the simulated
 * pages render, used as a person would; then ChatBridge driving them.
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBrowser } from '../../../agents/browser/find-browser.js';
import { SIM_SITES } from '../../../agents/simulator/site-config.js';
import { openSimPage, typeAndSend, type SimPage } from '../../support/sim-page.js';

const COMPOSER = '[data-testid="chat-input"]';

describe('simulated Claude pages', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: findBrowser() });
  });
  afterAll(async () => browser?.close());

  /** Sends `count` prompts in one conversation, each once the previous answer finished. */
  const converse = async (sp: SimPage, count: number) => {
    for (let i = 1; i <= count; i++) {
      await typeAndSend(sp, COMPOSER, `Prompt ${i} [[sim:ms=100]]`);
      await sp.page.waitForFunction((n) => {
        const newest = Array.from(document.querySelectorAll('[data-is-streaming]')).at(-1);
        return newest?.getAttribute('data-is-streaming') === 'false' && newest.textContent!.includes(`turn ${n}`);
      }, i);
    }
  };

  it('transcript: the newest six rows stay mounted, numbered among all of them', async () => {
    const sp = await openSimPage(browser, 'claude', { layout: 'transcript' });
    try {
      await converse(sp, 4);
      const rows = await sp.page.$$eval('[data-testid="transcript-list"] > [data-testid="transcript-row"]', (all) =>
        all.map((r) => [r.getAttribute('data-perf-row'), r.getAttribute('data-index'), r.getAttribute('data-last-message'), r.firstElementChild!.getAttribute('aria-label')]),
      );
      expect(rows).toEqual([
        ['human', '2', 'false', 'Message 3 of 8'],
        ['assistant', '3', 'false', 'Message 4 of 8'],
        ['human', '4', 'false', 'Message 5 of 8'],
        ['assistant', '5', 'false', 'Message 6 of 8'],
        ['human', '6', 'false', 'Message 7 of 8'],
        ['assistant', '7', 'true', 'Message 8 of 8'],
      ]);
      expect(await sp.page.$$eval('[data-perf-row="assistant"]', (all) => all.map((r) => r.getAttribute('data-perf-row-streaming')))).toEqual(['false', 'false', 'false']);
      // A conversation opened afresh mounts only its newest rows too.
      await sp.page.reload();
      expect(await sp.page.locator('[data-testid="transcript-row"]').count()).toBe(6);
      expect(await sp.page.locator('[data-testid="transcript-row"]').first().getAttribute('data-index')).toBe('2');
    } finally {
      await sp.close();
    }
  });

  it('rs-rows: [data-rs-index] rows in the "chat messages" article, told apart only by their contents', async () => {
    const sp = await openSimPage(browser, 'claude', { layout: 'rs-rows' });
    try {
      await converse(sp, 4);
      const rows = await sp.page.$$eval('[role="article"][aria-label="chat messages"] > [data-rs-index]', (all) =>
        all.map((r) => [
          r.getAttribute('data-rs-index'),
          r.getAttribute('data-last-message'),
          r.querySelector(':scope > [role="article"]')!.getAttribute('aria-label'),
          r.querySelector('h2.sr-only')!.textContent!.replace(/:.*/s, ':'),
        ]),
      );
      expect(rows).toEqual([
        ['2', 'false', 'Message 3 of 8', 'You said:'],
        ['3', 'false', 'Message 4 of 8', 'Claude responded:'],
        ['4', 'false', 'Message 5 of 8', 'You said:'],
        ['5', 'false', 'Message 6 of 8', 'Claude responded:'],
        ['6', 'false', 'Message 7 of 8', 'You said:'],
        ['7', 'true', 'Message 8 of 8', 'Claude responded:'],
      ]);
      expect(await sp.page.locator('[data-testid="transcript-row"], [data-perf-row], [data-perf-row-streaming], [data-index]').count()).toBe(0);
      expect(await sp.page.locator('[data-testid="virtual-message-list"] [data-rs-index] .font-claude-response').count()).toBe(3);
    } finally {
      await sp.close();
    }
  });

  for (const layout of SIM_SITES.claude.layouts) {
    it(`${layout}: the usage limit replaces the editor with the stand-in notice, also on a page opened while limited`, async () => {
      const sp = await openSimPage(browser, 'claude', { layout });
      try {
        await converse(sp, 1);
        await typeAndSend(sp, COMPOSER, 'One more [[sim:limit]]');
        const standIn = sp.page.locator('section[data-composer-stand-in]');
        await standIn.waitFor();
        expect(await standIn.textContent()).toMatch(/^Your free messages return at \d{1,2}:\d{2} [AP]M\.Upgrade$/);
        const gone = () => sp.page.locator(`${COMPOSER}, [contenteditable], [data-testid="chat-input-send"], [data-testid="chat-input-stop"]`).count();
        expect(await gone()).toBe(0);
        await sp.page.goto(new URL(SIM_SITES.claude.paths.newChat, sp.sim.url).href);
        expect(await standIn.textContent()).toMatch(/^Your free messages return at \d{1,2}:\d{2} [AP]M\./);
        expect(await gone()).toBe(0);
      } finally {
        await sp.close();
      }
    });
  }
});
