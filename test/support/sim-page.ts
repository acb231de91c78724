/**
 * A simulated site opened in a plain Playwright page, used the way a person uses it (typing,
 * Enter, clicks): no ChatBridge, no selector pack. For tests of the simulator itself (its
 * layouts, its drift, its interstitials).
 */
import type { Browser, ElementHandle, Page } from 'playwright-core';
import type { DriftProbe } from '../../agents/simulator/client/drift.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { startSiteServer, type SimLook, type SimSite } from '../../agents/simulator/site-server.js';
import type { Provider } from '../../main/core/providers.js';
import { PagePool } from './page-pool.js';
import { until } from './until.js';

export interface SimPage {
  sim: SimSite;
  page: Page;
  /** Errors the page threw. */
  errors: string[];
  close(): Promise<void>;
}

export interface SimPageOptions {
  look?: SimLook;
  /**
   * Whether the person is signed in (the default: the browser holds a session, as it does
   * after the login form, which pairing and the agents' logout tests go through) or not.
   */
  signIn?: 'session' | 'no';
  /** Runs in every page before the site's own scripts (a page used again keeps the one it was made with: the pool is per script). */
  initScript?: string | (() => void);
  /** The window: 1000×900 unless given (what is "in view" depends on it). */
  viewport?: { width: number; height: number };
}

/** Simulator pages of tests that ended, per window and init script. */
const pages = new PagePool<{ page: Page }>();

/** `provider`'s simulated site, and a page in `browser` (of a context of its own) on its new chat. */
export async function openSimPage(browser: Browser, provider: Provider, options: SimPageOptions = {}): Promise<SimPage> {
  const config = SIM_SITES[provider];
  const sim = await startSiteServer(config, options.look ?? {});
  const viewport = options.viewport ?? { width: 1000, height: 900 };
  const kind = JSON.stringify([viewport, options.initScript?.toString() ?? null]);
  const held = await pages.take(browser, kind, async () => {
    const context = await browser.newContext({ viewport });
    if (options.initScript) await context.addInitScript(options.initScript);
    return { page: await context.newPage() };
  });
  const { page } = held;
  if (options.signIn !== 'no') await page.context().addCookies([sim.session()]);
  const errors: string[] = [];
  const onError = (e: Error) => errors.push(e.message);
  page.on('pageerror', onError);
  await page.goto(new URL(config.paths.newChat, sim.url).href);
  return {
    sim,
    page,
    errors,
    close: async () => {
      page.off('pageerror', onError);
      await pages.giveBack(browser, kind, held);
      await sim.close();
    },
  };
}

/** Types `prompt` into the element `composer` finds (newlines as text, not Enter presses) and presses Enter. */
export async function typeAndPress(sp: SimPage, composer: string, prompt: string): Promise<void> {
  await sp.page.locator(composer).first().click();
  await sp.page.keyboard.insertText(prompt);
  await sp.page.keyboard.press('Enter');
}

/** {@link typeAndPress}, resolving once the site has logged the send. */
export async function typeAndSend(sp: SimPage, composer: string, prompt: string): Promise<void> {
  const before = sp.sim.log.sends.length;
  await typeAndPress(sp, composer, prompt);
  await until(() => sp.sim.log.sends.length > before, 15_000, `the site to receive "${prompt}"`);
}

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

/** A page of a drifted site, where a person finds things by what they look like, not by their names. */
export interface DriftPage extends SimPage {
  /** What the page wrote to the clipboard (intercepted: the real one is never touched). */
  clipboard(): Promise<string[]>;
  /** The first visible element that was built as one of `originals` (tried in order). */
  find(originals: Original[], timeout?: number): Promise<ElementHandle<Element>>;
  /** Types `prompt` into the composer and clicks send, as a person does; resolves once the site has it. */
  ask(prompt: string): Promise<void>;
}

/** `provider`'s simulated site in `look` (its drift), signed in, on a new chat. */
export async function openDriftPage(browser: Browser, provider: Provider, look: SimLook = {}): Promise<DriftPage> {
  const sp = await openSimPage(browser, provider, { look, viewport: { width: 1280, height: 900 }, initScript: interceptClipboard });
  const { sim, page } = sp;

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
    ...sp,
    clipboard: () => page.evaluate(() => [...(window as unknown as { __written: string[] }).__written]),
    find,
    async ask(prompt) {
      const sent = sim.log.sends.length;
      await (await find(PERSON[provider].composer)).click();
      await page.keyboard.type(prompt);
      await (await find(PERSON[provider].send)).click();
      await until(() => sim.log.sends.length > sent, 15_000, `${provider} to receive "${prompt}"`);
    },
  };
}

/** Keeps what the page writes to the clipboard in `window.__written`. */
function interceptClipboard(): void {
  const written: string[] = [];
  (window as unknown as { __written: string[] }).__written = written;
  Object.defineProperty(navigator.clipboard, 'writeText', { value: async (text: string) => void written.push(text), configurable: true });
  Object.defineProperty(navigator.clipboard, 'write', {
    value: async (items: ClipboardItem[]) => {
      for (const item of items) if (item.types.includes('text/plain')) written.push(await (await item.getType('text/plain')).text());
    },
    configurable: true,
  });
}
