/**
 * Qwen's layouts beside the default: the core provider suite on each, then what the
 * simulated page shows that the packs have to cope with (Monaco code blocks that hold only
 * the lines in view, the A/B pair that holds the chat until a pick).
 */
import { pageWorld } from '../../../agents/providers/page-world.js';
import { packJson } from '../../../agents/providers/site.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { simulatedAnswer } from '../../../agents/simulator/answer.js';
import { secondResponse } from '../../../agents/simulator/client/second-response.js';
import { startE2E, type E2E } from '../../support/e2e.js';
import { openSimPage, typeAndPress, type SimPage } from '../../support/sim-page.js';
import { until } from '../../support/until.js';
import { describeBeside } from '../../support/beside.js';
import { providerSuite } from '../provider-suite.js';
import { giveBackTestBrowser, takeTestBrowser } from '../../support/test-browser.js';

providerSuite('qwen', { layout: 'dual' }, 'core');

/** The composer a person types into. */
const COMPOSER = 'textarea.message-input-textarea';

/** What the page wrote to the clipboard, kept in the page instead of the real clipboard. */
const interceptClipboard = () =>
  Object.defineProperty(navigator.clipboard, 'writeText', {
    value: (text: string) => {
      (window as unknown as { copied: string }).copied = text;
      return Promise.resolve();
    },
  });

describeBeside('the simulated Qwen page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await takeTestBrowser();
  });
  afterAll(async () => giveBackTestBrowser(browser));
  let s: SimPage;
  afterAll(async () => s?.close());

  describe.sequential('Monaco code blocks (layout single)', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1}${i === 40 ? '\tafter a tab' : ''}`);
    beforeAll(async () => {
      s = await openSimPage(browser, 'qwen', { initScript: interceptClipboard, viewport: { width: 1280, height: 720 } });
      await typeAndPress(s, COMPOSER, lines.join('\n'));
      await s.page.waitForSelector('.response-message-footer');
    }, 30_000);

    it('draws only the lines in view, and no tab', async ({ expect }) => {
      // The answer's first block echoes the 60-line prompt.
      const block = s.page.locator('pre.qwen-markdown-code').first();
      expect(await block.locator('.qwen-markdown-code-header > div:first-child').textContent()).toBe('text');
      expect(await block.locator('.qwen-markdown-code-body').getAttribute('class')).toBe('qwen-markdown-code-body text');
      const drawn = await block.locator('.view-line').allTextContents();
      expect(drawn.length).toBe(24);
      expect(drawn[0]).toBe('line\u00a01');
      // The editor's content is as tall as all 60 lines: a reader can tell lines are missing.
      expect(await block.locator('.lines-content').evaluate((e) => (e as HTMLElement).style.height)).toBe(`${60 * 19}px`);
      expect(await block.locator('.line-numbers').allTextContents()).toEqual(Array.from({ length: 24 }, (_, i) => String(i + 1)));
      expect(await block.textContent()).not.toContain('\t');
    });

    it('draws further lines on the wheel, out of DOM order, a tab as no-break spaces up to its stop', async ({ expect }) => {
      const block = s.page.locator('pre.qwen-markdown-code').first();
      await block.locator('.monaco-scrollable-element').hover();
      await s.page.mouse.wheel(0, 30 * 19);
      await until(async () => (await block.locator('.view-line').allTextContents()).includes('line\u00a041\u00a0after\u00a0a\u00a0tab'));
      await s.page.mouse.wheel(0, -10 * 19);
      await until(async () => (await block.locator('.view-line').allTextContents()).includes('line\u00a021'));
      const tops = await block.locator('.view-line').evaluateAll((all) => all.map((l) => parseInt((l as HTMLElement).style.top, 10)));
      expect(tops).not.toEqual([...tops].sort((a, b) => a - b));
    });

    it("copies the whole block, tabs included, from the block's own Copy", async ({ expect }) => {
      await s.page.locator('pre.qwen-markdown-code').first().locator('.qwen-markdown-code-header-action-item').first().click();
      expect(await s.page.evaluate(() => (window as unknown as { copied: string }).copied)).toBe(lines.join('\n'));
    });

    it("copies the answer's Markdown from the footer's copy control", async ({ expect }) => {
      await s.page.locator('.response-message-footer .qwen-chat-package-comp-new-action-control-container-copy').click();
      expect(await s.page.evaluate(() => (window as unknown as { copied: string }).copied)).toBe(simulatedAnswer('Qwen', 'qwen', lines.join('\n'), 1));
    });
  });

  describe.sequential('the A/B pair (layout dual)', () => {
    beforeAll(async () => {
      await s?.close();
      s = await openSimPage(browser, 'qwen', { look: { layout: 'dual' }, initScript: interceptClipboard, viewport: { width: 1280, height: 720 } });
      await typeAndPress(s, COMPOSER, 'Pick one');
      await s.page.locator('button.smulti-make-better').nth(1).waitFor();
    }, 30_000);

    it('shows two answers in one dual message, each with its own footer and preference button', async ({ expect }) => {
      const message = s.page.locator('.qwen-chat-message-assistant.qwen-chat-message-dual-message');
      await expect(message.count()).resolves.toBe(1);
      const boxes = message.locator('.smulti-o-response-message-wrapper > .response-message-box');
      expect(await boxes.count()).toBe(2);
      expect(await boxes.locator('.chat-response-message .response-message-footer').count()).toBe(2);
      expect(await s.page.locator('button.smulti-make-better').allTextContents()).toEqual(['I prefer this response', 'I prefer this response']);
      expect(await message.textContent()).toContain('Which response do you prefer? Select one to continue.');
      await boxes.nth(1).locator('.qwen-chat-package-comp-new-action-control-container-copy').click();
      expect(await s.page.evaluate(() => (window as unknown as { copied: string }).copied)).toBe(secondResponse(simulatedAnswer('Qwen', 'qwen', 'Pick one', 1)));
    });

    it('does not go on until one is picked: Send stays disabled, Enter sends nothing', async ({ expect }) => {
      const sends = s.sim.log.sends.length;
      await typeAndPress(s, COMPOSER, 'Next question');
      expect(await s.page.locator('button.send-button').isDisabled()).toBe(true);
      // The page clears the composer as it takes a prompt: the prompt is still there, unsent.
      expect(await s.page.locator(COMPOSER).inputValue()).toBe('Next question');
      expect(s.sim.log.sends.length).toBe(sends);
    });

    it('folds into the first answer when it is picked, and the chat goes on', async ({ expect }) => {
      await s.page.locator('button.smulti-make-better').first().click();
      await until(() => s.sim.log.prefers.length === 1);
      expect(s.sim.log.prefers[0]!.choice).toBe(1);
      expect(await s.page.locator('button.smulti-make-better, .qwen-chat-message-dual-message, .response-message-box').count()).toBe(0);
      expect(await s.page.locator('.qwen-chat-message-assistant .chat-response-message').count()).toBe(1);
      expect(await s.page.locator('.chat-response-message .qwen-markdown').first().textContent()).not.toContain('Response 2');
      const sends = s.sim.log.sends.length;
      await s.page.locator('button.send-button').click();
      await until(() => s.sim.log.sends.length === sends + 1);
      expect(s.sim.log.sends.at(-1)!.prompt).toBe('Next question');
    });

    it('keeps the second answer in the conversation when that one is picked', async ({ expect }) => {
      await s.page.locator('button.smulti-make-better').nth(1).waitFor();
      await s.page.locator('button.smulti-make-better').nth(1).click();
      await until(() => s.sim.log.prefers.length === 2);
      await s.page.reload();
      const answers = await s.page.locator('.chat-response-message .qwen-markdown').allTextContents();
      expect(answers).toHaveLength(2);
      expect(answers[1]).toContain('Response 2: another draft');
      expect(await s.page.locator('.qwen-chat-message-dual-message').count()).toBe(0);
    });
  });
});

describeBeside('ChatBridge on Qwen', () => {
  let e: E2E;
  afterAll(async () => e?.stop());
  const ask = (body: Record<string, unknown>) => e.api('POST', '/v1/completions', { body: { provider: 'qwen', ...body } });

  describe.sequential('the A/B pair (layout dual)', () => {
    beforeAll(async () => {
      e = await startE2E('qwen', 1, { layout: 'dual' });
    }, 60_000);

    it('returns the first answer and picks it, so the conversation goes on', async ({ expect }) => {
      const first = await ask({ prompt: 'Two drafts' });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.response).toBe(simulatedAnswer('Qwen', 'qwen', 'Two drafts', 1));
      await until(() => e.sim.log.prefers.length === 1, 15_000, 'the pick');
      expect(e.sim.log.prefers[0]!.choice).toBe(1);
      const second = await ask({ prompt: 'And again', mode: 'continue', conversation_ref: first.body.conversation_ref });
      expect(second.status, JSON.stringify(second.body)).toBe(200);
      expect(second.body.response).toBe(simulatedAnswer('Qwen', 'qwen', 'And again', 2));
      await until(() => e.sim.log.prefers.length === 2, 15_000, 'the second pick');
      expect(e.sim.log.prefers.map((p) => p.choice)).toEqual([1, 1]);
    });
  });

  describe.sequential('Monaco code blocks (layout single)', () => {
    beforeAll(async () => {
      await e?.stop();
      e = await startE2E('qwen', 1);
    }, 60_000);

    it('reads a block longer than the editor shows back whole, tabs included', async ({ expect }) => {
      const prompt = Array.from({ length: 80 }, (_, i) => (i % 10 === 5 ? `\tline ${i + 1}` : `line ${i + 1}`)).join('\n');
      const r = await ask({ prompt });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.response).toBe(simulatedAnswer('Qwen', 'qwen', prompt, 1));

      // The page alone: through each block's own Copy the DOM reads back the same Markdown;
      // without those controls it says lines are missing rather than return fewer.
      const page = await e.browserAgents[0]!.page()!.context().newPage();
      await page.goto((await e.service.store.conversation(r.body.conversation_ref))!.address);
      const world = pageWorld(page);
      const read = () =>
        world.withCopyHook(() =>
          world.run((h, json) => {
            const pack = h.pack(json);
            const turn = h.turns(pack)[0]!;
            try {
              return h.toMarkdown(h.find(pack.answer, turn) ?? turn);
            } catch (error) {
              return `error: ${(error as Error).message}`;
            }
          }, packJson(e.site.page)),
        );
      // A background tab runs no animation frames: poll on a timer.
      await page.waitForFunction(() => document.querySelector('.view-line'), undefined, { polling: 50 });
      expect(await read()).toBe(r.body.response);
      await page.evaluate(() => document.querySelectorAll('.qwen-markdown-code-header-actions').forEach((a) => a.remove()));
      expect(await read()).toBe('error: A code block shows 24 of its 80 lines and no copy control gives the rest.');
      await page.close();
    });
  });
});
