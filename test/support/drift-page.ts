/**
 * A simulated site opened in a plain Playwright page, used the way a person uses it: no
 * ChatBridge, no selector pack. For tests of the simulator itself (its layouts, its drift).
 */
import type { Browser, ElementHandle, Page } from 'playwright-core';
import type { DriftProbe } from '../../agents/simulator/client/drift.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { startSiteServer, type SimLook, type SimSite } from '../../agents/simulator/site-server.js';
import type { Provider } from '../../main/core/providers.js';
import { until } from './until.js';

/**
 * An element as the skin built it: an attribute and its value (for `class`, one of its
 * names), seen through any drift (`window.__SIM_DRIFT`), so a test can point at "the send
 * button" whatever the drift renamed.
 */
export type Original = [attr: string, value: string];

/**
 * Where a person finds the composer and the send control on each site's default layout:
 * the first of these that is on the page.
 */
export const PERSON: Record<Provider, { composer: Original[]; send: Original[] }> = {
  chatgpt: {
    composer: [
      ['id', 'prompt-textarea'],
      ['data-composer-markdown', 'true'],
    ],
    send: [
      ['data-testid', 'send-button'],
      ['type', 'submit'],
    ],
  },
  claude: { composer: [['data-testid', 'chat-input']], send: [['data-testid', 'chat-input-send']] },
  gemini: { composer: [['class', 'ql-editor']], send: [['class', 'send-button']] },
  deepseek: {
    // The 2026 layouts' textarea has a name and no id (as the 2026-05 real page); `classic` keeps its id.
    composer: [
      ['name', 'search'],
      ['id', 'chat-input'],
    ],
    send: [['class', 'ds-button--primary']],
  },
  qwen: { composer: [['class', 'message-input-textarea']], send: [['class', 'send-button']] },
  perplexity: { composer: [['id', 'ask-input']], send: [['data-testid', 'submit-button']] },
};

export interface SimPage {
  sim: SimSite;
  page: Page;
  /** Errors the page threw. */
  errors: string[];
  /** What the page wrote to the clipboard (intercepted: the real one is never touched). */
  clipboard(): Promise<string[]>;
  /** The first visible element that was built as one of `originals` (tried in order). */
  find(originals: Original[], timeout?: number): Promise<ElementHandle<Element>>;
  /** Types `prompt` into the composer and clicks send, as a person does; resolves once the site has it. */
  ask(prompt: string): Promise<void>;
  close(): Promise<void>;
}

/** `provider`'s simulated site in `look`, signed in, on a new chat. */
export async function openSimPage(browser: Browser, provider: Provider, look: SimLook = {}): Promise<SimPage> {
  const config = SIM_SITES[provider];
  const sim = await startSiteServer(config, look);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.request.post(new URL(config.paths.login, sim.url).href, { form: { email: 'person@example.test', password: 'simulated' } });
  await context.addInitScript(() => {
    const written: string[] = [];
    (window as unknown as { __written: string[] }).__written = written;
    Object.defineProperty(navigator.clipboard, 'writeText', { value: async (text: string) => void written.push(text), configurable: true });
    Object.defineProperty(navigator.clipboard, 'write', {
      value: async (items: ClipboardItem[]) => {
        for (const item of items) if (item.types.includes('text/plain')) written.push(await (await item.getType('text/plain')).text());
      },
      configurable: true,
    });
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(new URL(config.paths.newChat, sim.url).href);

  const find = async (originals: Original[], timeout = 5_000) => {
    const handle = await page.waitForFunction(
      (originals) => {
        const probe: DriftProbe | undefined = window.__SIM_DRIFT;
        const all = Array.from(document.querySelectorAll('*'));
        for (const [attr, value] of originals) {
          const hit = all.find((el) => {
            const v = probe ? probe.undrifted(el, attr) : el.getAttribute(attr);
            if (v === null || (attr === 'class' ? !v.split(/\s+/).includes(value) : v !== value)) return false;
            const box = el.getBoundingClientRect();
            return box.width > 0 && box.height > 0;
          });
          if (hit) return hit;
        }
        return null;
      },
      originals,
      { timeout },
    );
    return handle.asElement()!;
  };

  return {
    sim,
    page,
    errors,
    clipboard: () => page.evaluate(() => [...(window as unknown as { __written: string[] }).__written]),
    find,
    async ask(prompt) {
      const sent = sim.log.sends.length;
      await (await find(PERSON[provider].composer)).click();
      await page.keyboard.type(prompt);
      await (await find(PERSON[provider].send)).click();
      await until(() => sim.log.sends.length > sent, 5_000, `${provider} to receive "${prompt}"`);
    },
    async close() {
      await context.close();
      await sim.close();
    },
  };
}
