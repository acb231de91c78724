/**
 * ChatGPT's 2026 layouts. First the simulated page itself, driven as a person would in
 * real Chromium (no agent): each layout shows the markup research/providers-live-2026.md
 * describes, and the directives play in each layout's own markup. Then agents on them.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import { simulatedAnswer } from '../../../agents/simulator/answer.js';
import { pageWorld } from '../../../agents/providers/page-world.js';
import { SIM_SITES } from '../../../agents/simulator/site-config.js';
import type { SimSite } from '../../../agents/simulator/site-server.js';
import { startE2E, type E2E } from '../../support/e2e.js';
import { openSimPage, typeAndSend } from '../../support/sim-page.js';
import { until } from '../../support/until.js';
import { watchFirstSight } from '../../support/first-sight.js';
import { providerSuite } from '../provider-suite.js';
import { describeBeside, inOrder } from '../../support/beside.js';
import { giveBackTestBrowser, takeTestBrowser } from '../../support/test-browser.js';

const config = SIM_SITES.chatgpt;
/** The composer in every layout: the editor inside the composer form (a Canvas is not in it). */
const COMPOSER = 'form [contenteditable="true"]';

let browser: Browser;
beforeAll(async () => {
  browser = await takeTestBrowser();
});
afterAll(async () => giveBackTestBrowser(browser));

interface Visit {
  site: SimSite;
  page: Page;
  /** Types a prompt as a person does and presses Enter; resolves once the site received it. */
  ask(prompt: string): Promise<void>;
  /** Resolves once the page showed `count` answers finished. */
  finished(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A person on the simulated site in `layout`, logged in, on a new chat; clipboard writes kept in `window.__copied`. */
async function visit(layout: string): Promise<Visit> {
  const sp = await openSimPage(browser, 'chatgpt', { look: { layout }, viewport: { width: 1100, height: 900 }, initScript: keepCopied });
  const site = sp.sim;
  return {
    site,
    page: sp.page,
    ask: (prompt) => typeAndSend(sp, COMPOSER, prompt),
    async finished(count) {
      await until(() => site.log.finishes.length >= count, 10_000, `${count} finished answers`);
    },
    close: sp.close,
  };
}

function keepCopied(): void {
  Object.defineProperty(navigator.clipboard, 'writeText', {
    value: async (text: string) => {
      (window as unknown as { __copied: string }).__copied = text;
    },
  });
}

const copied = (page: Page) => page.evaluate(() => (window as unknown as { __copied?: string }).__copied ?? null);
const texts = (page: Page, css: string) => page.locator(css).evaluateAll((els) => els.map((e) => (e as HTMLElement).innerText.trim()));

describeBeside('the simulated ChatGPT page', () => {
  it('defaults to the app-shell layout, and knows the three generations and the Russian app-shell', ({ expect }) => {
    expect(config.layouts).toEqual(['app-shell', 'section', 'article', 'app-shell-ru']);
  });

  it('app-shell: one [data-turn-key] exchange per prompt, the DIL answer, testid-less controls and a turn state', async ({ expect }) => {
    const v = await visit('app-shell');
    try {
      const { page } = v;
      // The composer: a ProseMirror textbox in form[data-chatgpt-composer]; Send only once there is text.
      await expect(page.locator('form[data-chatgpt-composer] .ProseMirror[data-composer-markdown][role="textbox"]').count()).resolves.toBe(1);
      await expect(page.locator('button[aria-label="Send"]').isVisible()).resolves.toBe(false);
      await page.locator(COMPOSER).click();
      await page.keyboard.insertText('Show me [[sim:ms=1500]]');
      await expect(page.locator('form[data-chatgpt-composer] button[type="submit"][aria-label="Send"]').isVisible()).resolves.toBe(true);
      const IN_PROGRESS = '[data-turn-key] [data-talvt-turn-state="in_progress"]';
      const answering = await watchFirstSight(page, 'form[data-chatgpt-composer] button[type="button"][aria-label="Stop"] svg.icon-primary-action', [IN_PROGRESS]);
      await page.keyboard.press('Enter');
      await expect(answering()).resolves.toMatchObject({ counts: { [IN_PROGRESS]: 1 } });
      await v.finished(1);
      await expect(page.locator('[data-talvt-turn-state="complete"]').count()).resolves.toBe(1);

      const exchange = page.locator('[data-turn-key]');
      await expect(exchange.count()).resolves.toBe(1);
      await expect(exchange.locator('[data-user-message-bubble]').innerText()).resolves.toBe('Show me [[sim:ms=1500]]');
      await expect(exchange.locator('h4.sr-only[data-conversation-role="assistant"]').textContent()).resolves.toBe('ChatGPT said:');
      const answer = exchange.locator('.puik-root.not-markdown > [data-dil-message-id][data-markdown-text-style="assistant-message"][class*="_DilResponseRoot"]');
      await expect(answer.locator('strong').first().textContent()).resolves.toBe('Simulated ChatGPT');
      // Two action bars without test ids: the user's first, the answer's (with menus) once it is done.
      await expect(texts(page, '.turn-action-controls')).resolves.toHaveLength(2);
      await expect(exchange.locator('.turn-action-controls').nth(0).locator('button').evaluateAll((b) => b.map((x) => x.getAttribute('aria-label')))).resolves.toEqual([
        'Copy message',
        'Edit message',
      ]);
      await expect(exchange.locator('.turn-action-controls').nth(1).locator('button[aria-haspopup="menu"]').count()).resolves.toBe(2);
      for (const gone of ['article', '[data-testid]', '[data-message-author-role]', '.markdown', '#prompt-textarea']) {
        await expect(page.locator(gone).count(), gone).resolves.toBe(0);
      }
      // The answer's Copy gives its Markdown; the user's "Copy message" the prompt.
      await exchange.locator('.turn-action-controls').nth(1).locator('button[aria-label="Copy"]').click();
      await expect(copied(page)).resolves.toBe(simulatedAnswer('ChatGPT', 'chatgpt', 'Show me [[sim:ms=1500]]', 1));
      await exchange.locator('button[aria-label="Copy message"]').click();
      await expect(copied(page)).resolves.toBe('Show me [[sim:ms=1500]]');
    } finally {
      await v.close();
    }
  });

  it('app-shell: code blocks are CodeMirror viewers, a header "Python Copy" inside the <pre> and one .cm-line per line', async ({ expect }) => {
    const v = await visit('app-shell');
    try {
      await v.ask('Code please');
      await v.finished(1);
      const pre = v.page.locator('[data-dil-message-id] pre').nth(1);
      await expect(pre.innerText()).resolves.toMatch(/^Python\s*Copy\s*def answer_1\(\):/);
      const content = pre.locator('.cm-content[data-language="python"]');
      await expect(content.locator('.cm-line').allTextContents()).resolves.toEqual(['def answer_1():', '    return "chatgpt turn 1"']);
      await expect(content.textContent()).resolves.not.toContain('\n');
      // The block's own Copy copies its code only.
      await pre.locator('button[aria-label="Copy"]').click();
      await expect(copied(v.page)).resolves.toBe('def answer_1():\n    return "chatgpt turn 1"\n');
    } finally {
      await v.close();
    }
  });

  it('app-shell: Stop ends the answer but the turn state stays in_progress; [[sim:stale]] keeps it so on a finished answer, also after a reload', async ({ expect }) => {
    const v = await visit('app-shell');
    try {
      const { page, site } = v;
      await v.ask('Long [[sim:ms=30000]]'); // long enough to be stopped on a busy machine
      await page.locator('button[aria-label="Stop"]').click();
      await until(() => site.log.stops.length === 1, 15_000, 'the stop');
      await expect(page.locator('button[aria-label="Stop"]').isVisible()).resolves.toBe(false);
      await expect(page.locator('[data-talvt-turn-state]').getAttribute('data-talvt-turn-state')).resolves.toBe('in_progress');

      await v.ask('Done but stale [[sim:stale]]');
      await v.finished(1);
      const states = () => page.locator('[data-talvt-turn-state]').evaluateAll((els) => els.map((e) => e.getAttribute('data-talvt-turn-state')));
      await expect(states()).resolves.toEqual(['in_progress', 'in_progress']);
      await expect(page.locator('[data-turn-key]').nth(1).locator('.turn-action-controls button[aria-haspopup="menu"]').count()).resolves.toBe(2);
      await page.reload();
      await page.locator('[data-turn-key]').nth(1).waitFor();
      await expect(states()).resolves.toEqual(['complete', 'in_progress']);
    } finally {
      await v.close();
    }
  });

  it('app-shell: the safety review is a role=status notice while the answer starts, then goes; the answer finishes', async ({ expect }) => {
    const v = await visit('app-shell');
    try {
      const STATUS = '[data-turn-key] [role="status"][aria-live="polite"]';
      const review = await watchFirstSight(v.page, STATUS);
      await v.ask('Sensitive [[sim:review]] [[sim:ms=2400]]');
      await expect(review()).resolves.toMatchObject({ text: 'Our systems are performing additional processing on this request before providing a response.' });
      await v.finished(1);
      await expect(v.page.locator(STATUS).count()).resolves.toBe(0);
      await expect(v.page.locator('[role="alert"]').count()).resolves.toBe(0);
      await expect(v.page.locator('[data-talvt-turn-state="complete"]').count()).resolves.toBe(1);
    } finally {
      await v.close();
    }
  });

  it('app-shell: errors and usage caps are aside[role=alert] in the turn', async ({ expect }) => {
    const v = await visit('app-shell');
    try {
      await v.ask('Broken [[sim:error]]');
      await v.page.locator('[data-turn-key] aside[role="alert"]').waitFor();
      await expect(v.page.locator('[data-turn-key] aside[role="alert"]').innerText()).resolves.toMatch(/^A network error occurred\. Please check your connection and try again\.\s*Retry$/);
      await v.ask('Too much [[sim:limit]]');
      await v.page.locator('[data-turn-key] aside[role="alert"]').nth(1).waitFor();
      await expect(v.page.locator('[data-turn-key]').nth(1).innerText()).resolves.toMatch(/You've reached your usage limit\. Try again after/);
    } finally {
      await v.close();
    }
  });

  it('app-shell-ru: the same page in Russian, Send and Stop included', async ({ expect }) => {
    const v = await visit('app-shell-ru');
    try {
      const { page } = v;
      await page.locator(COMPOSER).click();
      await page.keyboard.insertText('Привет [[sim:ms=1500]]');
      await expect(page.locator('form[data-chatgpt-composer] button[type="submit"]').getAttribute('aria-label')).resolves.toBe('Отправить');
      const stop = await watchFirstSight(page, 'button[aria-label="Остановить"]');
      await page.keyboard.press('Enter');
      await stop();
      await v.finished(1);
      await expect(page.locator('h4[data-conversation-role="assistant"]').textContent()).resolves.toBe('ChatGPT сказал:');
      await expect(page.locator('[data-turn-key] .turn-action-controls').nth(1).locator('button').first().getAttribute('aria-label')).resolves.toBe('Копировать');
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ru');
    } finally {
      await v.close();
    }
  });

  it('section: section[data-testid^=conversation-turn-][data-turn] turns, each in its own div, with CodeMirror code', async ({ expect }) => {
    const v = await visit('section');
    try {
      await v.ask('Sections');
      await v.finished(1);
      const turns = v.page.locator('div > section[data-testid^="conversation-turn-"]');
      await expect(turns.evaluateAll((s) => s.map((e) => `${e.getAttribute('data-testid')} ${e.getAttribute('data-turn')}`))).resolves.toEqual([
        'conversation-turn-1 user',
        'conversation-turn-2 assistant',
      ]);
      const assistant = turns.nth(1);
      await expect(assistant.locator('[data-message-author-role="assistant"] .markdown .cm-content .cm-line').count()).resolves.toBe(3);
      await expect(assistant.locator('[role="group"][aria-label="Response actions"] [data-testid="copy-turn-action-button"]').getAttribute('aria-label')).resolves.toBe('Copy response');
      await expect(v.page.locator('article').count()).resolves.toBe(0);
    } finally {
      await v.close();
    }
  });

  it('article: the legacy turns, and plain <pre><code> code blocks', async ({ expect }) => {
    const v = await visit('article');
    try {
      await v.ask('Legacy');
      await v.finished(1);
      await expect(v.page.locator('article[data-testid="conversation-turn-2"][data-turn="assistant"] .markdown pre code.language-python').count()).resolves.toBe(1);
      await expect(v.page.locator('.cm-content').count()).resolves.toBe(0);
    } finally {
      await v.close();
    }
  });

  for (const layout of config.layouts) {
    it(`${layout}: error, refusal and usage limit show in the layout's own markup`, async ({ expect }) => {
      const v = await visit(layout);
      try {
        const { page } = v;
        const error = layout.startsWith('app-shell') ? '[data-turn-key] aside[role="alert"]' : '.text-token-text-error';
        await v.ask('Broken [[sim:error]]');
        await page.locator(error).waitFor();
        await v.ask('Forbidden [[sim:refuse]]');
        await page.getByText(/^(This content may violate our usage policies\.|Этот контент может нарушать наши правила использования\.)$/).waitFor();
        await v.ask('Limited [[sim:limit]]');
        await page.getByText(/You've reached your usage limit/).waitFor();
        expect(v.site.log.sends.map((s) => s.kind)).toEqual(['error', 'refuse', 'limit']);
      } finally {
        await v.close();
      }
    });
  }

  it('the A/B chooser: two answers, sending blocked until one is picked; the first kept with its Markdown', async ({ expect }) => {
    for (const layout of ['app-shell', 'section', 'article']) {
      const v = await visit(layout);
      try {
        const { page, site } = v;
        await v.ask('Compare [[sim:ab]]');
        await v.finished(1);
        await page.getByText('Which response do you prefer?').waitFor();
        await expect(page.getByRole('button', { name: 'I prefer this response' }).count(), layout).resolves.toBe(2);
        // A prompt typed under the chooser stays unsent.
        await page.locator(COMPOSER).click();
        await page.keyboard.insertText('Next');
        await page.keyboard.press('Enter');
        await expect(page.locator('form button:is([aria-label="Send"], [data-testid="send-button"])').isDisabled(), layout).resolves.toBe(true);
        // The page clears the composer as it takes a prompt: the prompt is still there, unsent.
        await expect(page.locator(COMPOSER).innerText(), layout).resolves.toBe('Next');
        expect(site.log.sends, layout).toHaveLength(1);

        await page.getByRole('button', { name: 'I prefer this response' }).first().click();
        await expect(page.getByText('Which response do you prefer?').count(), layout).resolves.toBe(0);
        await expect(page.getByText('Here is a second take.').count(), layout).resolves.toBe(0);
        await page.locator('button:is([aria-label="Copy"], [aria-label="Copy response"]):not(pre button)').last().click();
        await expect(copied(page), layout).resolves.toBe(simulatedAnswer('ChatGPT', 'chatgpt', 'Compare [[sim:ab]]', 1));
        await page.locator(COMPOSER).click();
        await page.keyboard.press('Enter');
        await until(() => site.log.sends.length === 2, 15_000, 'the send once picked');
      } finally {
        await v.close();
      }
    }
  });

  it('the Canvas: its editable CodeMirror comes before the composer in the page, and stays for the conversation', async ({ expect }) => {
    const v = await visit('app-shell');
    try {
      const { page } = v;
      await v.ask('Draft code [[sim:canvas]]');
      await v.finished(1);
      const before = () =>
        page.evaluate(() => {
          const editables = Array.from(document.querySelectorAll('[contenteditable="true"]'));
          return editables.map((e) => (e.closest('form') ? 'composer' : e.className));
        });
      await expect(before()).resolves.toEqual(['cm-content', 'composer']);
      await expect(page.locator('.cm-content[role="textbox"]').first().getAttribute('aria-placeholder')).resolves.toBe('Edit code');
      await page.reload();
      await page.locator('[data-turn-key]').waitFor();
      await expect(before()).resolves.toEqual(['cm-content', 'composer']);
    } finally {
      await v.close();
    }
  });

  it('a project chat lives at /g/g-p-<id>-<slug>/c/<id>, and the site serves it again there', async ({ expect }) => {
    const v = await visit('app-shell');
    try {
      const { page, site } = v;
      await v.ask('In a project [[sim:project]]');
      await v.finished(1);
      const id = site.log.finishes[0]!.conversationId;
      expect(new URL(page.url()).pathname).toMatch(new RegExp(`^/g/g-p-[0-9a-f]{32}-simulated-project/c/${id}$`));
      await page.reload();
      await expect(page.locator('[data-user-message-bubble]').innerText()).resolves.toBe('In a project [[sim:project]]');
      await v.ask('Still in it');
      await v.finished(2);
      expect(site.log.sends[1]!.conversationId).toBe(id);
    } finally {
      await v.close();
    }
  });

  it('the Chat/Work toggle: [[sim:work]] leaves the page in Work mode, remembered; a prompt sent in Work mode gets no chat answer', async ({ expect }) => {
    const v = await visit('app-shell');
    try {
      const { page, site } = v;
      const pressed = (name: string) => page.locator('button[aria-pressed]', { hasText: new RegExp(`^${name}$`) }).getAttribute('aria-pressed');
      await expect(pressed('Chat')).resolves.toBe('true');
      await v.ask('Then work [[sim:work]]');
      await v.finished(1);
      await expect(pressed('Work')).resolves.toBe('true');
      await page.goto(`${site.url}/`);
      await expect(pressed('Work')).resolves.toBe('true');
      await page.locator(COMPOSER).click();
      await page.keyboard.insertText('A task');
      await page.keyboard.press('Enter');
      await page.locator('[data-chatgpt-agent-turn-start]').waitFor();
      expect(site.log.sends).toHaveLength(1);
      await expect(page.locator('[data-conversation-role="assistant"]').count()).resolves.toBe(0);
      await page.locator('button[aria-pressed]', { hasText: /^Chat$/ }).click();
      await v.ask('A chat');
      await v.finished(2);
    } finally {
      await v.close();
    }
  });
});

// Then agents: the core suite on each layout beside the default (which has the full suite,
// test/e2e/chatgpt.test.ts), and what is ChatGPT's own, on the default layout.
for (const layout of config.layouts.slice(1)) providerSuite('chatgpt', { layout }, 'core');

describeBeside('a ChatGPT agent on what the 2026 site does', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E('chatgpt', 1);
  }, 60_000);
  afterAll(async () => e?.stop());

  const ask = (body: Record<string, unknown>) => e.api('POST', '/v1/completions', { body: { provider: 'chatgpt', ...body } });
  const answer = (prompt: string, turn = 1) => simulatedAnswer('ChatGPT', 'chatgpt', prompt, turn);
  const addressOf = async (ref: string) => new URL((await e.driver.conversation(ref))!.address);

  inOrder('answers under the A/B chooser with the first answer, and sends once', async ({ expect }) => {
    const prompt = 'Compare [[sim:ab]]';
    const r = await ask({ prompt });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.response).toBe(answer(prompt));
    expect(e.sim.log.sends.filter((s) => s.prompt === prompt)).toHaveLength(1);
  });

  inOrder('keeps a project chat at /g/<project>/c/<id> and continues it there', async ({ expect }) => {
    const first = await ask({ prompt: 'In a project [[sim:project]]' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await addressOf(first.body.conversation_ref)).pathname).toMatch(/^\/g\/g-p-[0-9a-f]{32}-simulated-project\/c\/[0-9a-f-]{36}$/);
    const second = await ask({ prompt: 'Still in the project', mode: 'continue', conversation_ref: first.body.conversation_ref });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.response).toBe(answer('Still in the project', 2));
  });

  inOrder('writes in the composer, not in a Canvas editor that comes first in the page', async ({ expect }) => {
    const first = await ask({ prompt: 'Draft it [[sim:canvas]]' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // The conversation now opens with the Canvas before the composer.
    const second = await ask({ prompt: 'Next to the canvas', mode: 'continue', conversation_ref: first.body.conversation_ref });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.response).toBe(answer('Next to the canvas', 2));
    expect(e.sim.log.sends.at(-1)!.prompt).toBe('Next to the canvas');
  });

  inOrder('reads an answer whose turn state stays in_progress, and continues past that stale turn', async ({ expect }) => {
    const started = Date.now();
    const first = await ask({ prompt: 'Stale state [[sim:stale]]' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.response).toBe(answer('Stale state [[sim:stale]]'));
    expect(Date.now() - started).toBeLessThan(15_000);
    const second = await ask({ prompt: 'After the stale one', mode: 'continue', conversation_ref: first.body.conversation_ref });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.response).toBe(answer('After the stale one', 2));
  });

  inOrder('waits through the safety review notice: not an error, the answer whole', async ({ expect }) => {
    const prompt = 'Reviewed [[sim:review]] [[sim:ms=2400]]';
    const r = await ask({ prompt });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.response).toBe(answer(prompt));
    expect(r.body.attempts).toBe(1);
  });

  inOrder('switches a page left in Work mode back to Chat before sending', async ({ expect }) => {
    const first = await ask({ prompt: 'Then work [[sim:work]]' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // The agent's next page opens in Work mode, where a prompt would start a task.
    const second = await ask({ prompt: 'Chat please' });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.response).toBe(answer('Chat please'));
  });

  inOrder('reads CodeMirror code blocks back from the page as fenced Markdown: no header text, lines kept', async ({ expect }) => {
    const prompt = 'Lines:\n\n    indented\n\nlast';
    const r = await ask({ prompt });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const page = await e.browserAgents[0]!.page()!.context().newPage();
    await page.goto((await e.driver.conversation(r.body.conversation_ref))!.address);
    await page.locator('.cm-content').first().waitFor();
    const fromDom = await pageWorld(page).run((h) => h.toMarkdown(document.querySelector('[data-dil-message-id]')!), undefined);
    await page.close();
    expect(fromDom).toBe(answer(prompt));
    expect(fromDom).not.toMatch(/Python|Copy/);
  });
});
