/**
 * The thin flow that drives any provider's page through its selector pack: open the right
 * conversation, insert the prompt whole, send, wait for the provider's own finished-turn
 * signal, read the answer as Markdown, and capture the conversation's address.
 */
import type { ElementHandle, Page } from 'playwright-core';
import { AgentFailure, type AgentResult, type AgentTask } from '../../main/core/agent.js';
import type { TurnProblem } from './page-helpers.js';
import type { ProviderSite, Role, SelectorPack } from './site.js';

const PAGE_READY_MS = 30_000;
const SEND_READY_MS = 5_000;
const COPY_WAIT_MS = 2_000;
const ADDRESS_WAIT_MS = 10_000;

export function newChatUrl(site: ProviderSite): string {
  return new URL(site.newChatPath, site.baseUrl).href;
}

/** Opens a fresh chat, ready for the next prompt. */
export async function openNewChat(page: Page, site: ProviderSite): Promise<void> {
  await page.goto(newChatUrl(site), { waitUntil: 'domcontentloaded' });
}

/** Waits until the page shows its composer, or something that stands in the way (thrown as a failure). */
export async function waitUntilReady(page: Page, site: ProviderSite): Promise<void> {
  if (site.loginUrl.test(page.url())) throw new AgentFailure('logged_out', 'The provider asks to log in.');
  const handle = await page.waitForFunction(
    (pack: SelectorPack) => {
      const h = window.__chatbridge;
      return h && (h.blocker(pack) ?? (h.find(pack.composer) ? 'ready' : null));
    },
    site.selectors,
    { timeout: PAGE_READY_MS },
  );
  const state = (await handle.jsonValue()) as TurnProblem | 'ready';
  await handle.dispose();
  if (state !== 'ready') throw failureFor(state, site);
  if (site.loginUrl.test(page.url())) throw new AgentFailure('logged_out', 'The provider asks to log in.');
}

/** Runs one prompt on a page that `waitUntilReady` has vetted. */
export async function runTurn(page: Page, site: ProviderSite, task: AgentTask): Promise<AgentResult> {
  const pack = site.selectors;
  const index = await page.evaluate((p: SelectorPack) => window.__chatbridge!.count(p.assistantTurn), pack);
  await insertPrompt(page, site, task.prompt);
  await send(page, site);

  const watching = page.evaluate(
    ([p, i, scope]) => window.__chatbridge!.watchTurn(p, i, scope),
    [pack, index, site.turnScope ?? null] as const,
  );
  const outcome = await untilAborted(watching, task.signal, () => pressStop(page, pack)).catch((error: unknown) => {
    // A full-page move to the login page mid-turn destroys the watching script.
    if (!task.signal.aborted && site.loginUrl.test(page.url())) throw new AgentFailure('logged_out', `${site.name} asks to log in.`);
    throw error;
  });
  if (outcome.kind !== 'finished') throw failureFor(outcome, site);

  const text = await readAnswer(page, site, index);
  await page.waitForURL((url) => site.conversationPath.test(url.pathname), { timeout: ADDRESS_WAIT_MS }).catch(() => {
    throw new AgentFailure('provider_error', 'The provider did not give the conversation an address.');
  });
  return { text, conversation: page.url() };
}

async function insertPrompt(page: Page, site: ProviderSite, prompt: string): Promise<void> {
  const composer = await roleHandle(page, site.selectors, 'composer');
  if (!composer) throw new AgentFailure('provider_error', 'The composer is gone.');
  if (site.input === 'fill') {
    // The native value setter plus an input event is what React-controlled textareas
    // listen to, and it takes 100 000 characters at once; Playwright's fill pays per
    // newline. If the page did not take the value, fill it the slow way.
    const taken = await composer.evaluate((el, text) => {
      if (!(el instanceof HTMLTextAreaElement)) return false;
      const area = el;
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(area, text);
      area.dispatchEvent(new Event('input', { bubbles: true }));
      return area.value === text;
    }, prompt);
    if (!taken) await composer.fill(prompt);
  } else {
    // Rich editors take a paste whole, newlines included; typing a newline would send early.
    const taken = await composer.evaluate((el, text) => {
      (el as HTMLElement).focus();
      const data = new DataTransfer();
      data.setData('text/plain', text);
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      return ((el as HTMLElement).innerText ?? '').trim() !== '';
    }, prompt);
    // An editor that ignores synthetic paste data gets the browser's own text insertion.
    if (!taken) await page.keyboard.insertText(prompt);
  }
  await composer.dispose();
}

async function send(page: Page, site: ProviderSite): Promise<void> {
  // The send button often appears only once the composer has text (the voice button holds
  // its slot before): look for it after inserting, and fall back to Enter.
  const ready = await page
    .waitForFunction(
      (pack: SelectorPack) => {
        const b = window.__chatbridge!.find(pack.send) as HTMLButtonElement | null;
        return !!b && !b.disabled && b.getAttribute('aria-disabled') !== 'true';
      },
      site.selectors,
      { timeout: SEND_READY_MS },
    )
    .then(
      () => true,
      () => false,
    );
  const button = ready ? await roleHandle(page, site.selectors, 'send') : null;
  if (button) {
    await button.click();
    await button.dispose();
  } else {
    const composer = await roleHandle(page, site.selectors, 'composer');
    if (!composer) throw new AgentFailure('provider_error', 'Nothing to send with.');
    await composer.press('Enter');
    await composer.dispose();
  }
}

/**
 * The answer as the provider's own Markdown, through its copy control with the page's
 * clipboard intercepted; the DOM converted to Markdown when copying gives nothing.
 */
async function readAnswer(page: Page, site: ProviderSite, index: number): Promise<string> {
  const pack = site.selectors;
  await page.evaluate(() => window.__chatbridge!.clearClipboard());
  const findCopy = () =>
    page.evaluateHandle(([p, i, scope]) => window.__chatbridge!.inTurn(p, i, 'copy', scope), [pack, index, site.turnScope ?? null] as const);
  let copy = await findCopy();
  if (!copy.asElement()) {
    // Some sites show a turn's actions only while it is hovered.
    await copy.dispose();
    const turn = await page.evaluateHandle(([p, i]) => window.__chatbridge!.turn(p, i), [pack, index] as const);
    await turn.asElement()?.hover({ timeout: 1_000 }).catch(() => {});
    await turn.dispose();
    copy = await findCopy();
  }
  const button = copy.asElement();
  if (button) {
    // A real (trusted) click, without waiting for the button to settle: it is there.
    await button.click({ force: true, timeout: 2_000 }).catch(() => {});
    const copied = await page
      .waitForFunction(() => window.__chatbridge!.clipboard, undefined, { timeout: COPY_WAIT_MS, polling: 10 })
      .then((h) => h.jsonValue() as Promise<string>)
      .catch(() => null);
    if (copied) {
      await copy.dispose();
      return copied;
    }
  }
  await copy.dispose();
  return page.evaluate(
    ([p, i]) => {
      const h = window.__chatbridge!;
      const turn = h.turn(p, i);
      const answer = turn && (h.find(p.answer, turn) ?? turn);
      return answer ? h.toMarkdown(answer) : '';
    },
    [pack, index] as const,
  );
}

async function pressStop(page: Page, pack: SelectorPack): Promise<void> {
  const stop = await roleHandle(page, pack, 'stop').catch(() => null);
  await stop?.click({ timeout: 2_000 }).catch(() => {});
  await stop?.dispose();
}

async function roleHandle(page: Page, pack: SelectorPack, role: Role): Promise<ElementHandle<Element> | null> {
  const handle = await page.evaluateHandle(([p, r]) => window.__chatbridge!.find(p[r]), [pack, role] as const);
  const element = handle.asElement();
  if (!element) await handle.dispose();
  return element;
}

/**
 * Waits for `work`, unless `signal` aborts first: then `onAbort` runs (press Stop) and the
 * abort reason is thrown. The abandoned evaluation is left to fail quietly.
 */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal, onAbort: () => Promise<void>): Promise<T> {
  work.catch(() => {});
  if (signal.aborted) {
    await onAbort();
    throw signal.reason;
  }
  let abort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    abort = () => {
      void onAbort().finally(() => reject(signal.reason));
    };
    signal.addEventListener('abort', abort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}

function failureFor(outcome: TurnProblem, site: ProviderSite): AgentFailure {
  switch (outcome.kind) {
    case 'errorCard':
      return new AgentFailure('provider_error', `${site.name} showed an error: ${outcome.text}`);
    case 'refusal':
      return new AgentFailure('rejected', `${site.name} refused the prompt: ${outcome.text}`);
    case 'limitBanner':
      return new AgentFailure('rate_limited', outcome.text, site.parseLimitReset?.(outcome.text, new Date()) ?? undefined);
    case 'loginWall':
      return new AgentFailure('logged_out', `${site.name} asks to log in.`);
    case 'challenge':
      return new AgentFailure('challenge', `${site.name} shows a verification challenge; solve it in the agent's window.`);
  }
}
