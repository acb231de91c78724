/**
 * The thin flow that drives any provider's page through its selector pack: open the right
 * conversation, clear what stands in the way, insert the prompt whole, send, wait for the
 * first new assistant turn to end, read the answer as Markdown, and capture the
 * conversation's address. When a role the flow needs cannot be found by any cue, it fails
 * within seconds with `site_changed` naming the role, instead of waiting for a timeout.
 */
import type { ElementHandle, Page } from 'playwright-core';
import { AgentFailure, type AgentNote, type AgentResult, type AgentTask } from '../../main/core/agent.js';
import { limitLiftsAt } from './limit-reset.js';
import type { Obstacle, TurnProblem, WatchLimits } from './page-helpers.js';
import type { PagePack, ProviderSite, Role } from './site.js';

/** The page must finish loading within this. */
const PAGE_LOAD_MS = 30_000;
/** The send control, when the site shows one only once the composer holds text. */
const SEND_READY_MS = 3_000;
/** After a send, something must show that it went: the prompt gone from the composer, a new turn, the stop control. */
const SENT_MS = 5_000;
/**
 * The waits after which the flow decides that a role is missing: a new turn must appear
 * within `appearMs` (90 s while the page shows it is at work); without a finished signal,
 * the answer must settle for `settleMs`. Tests of those failures shorten them.
 */
export interface FlowLimits extends WatchLimits {
  /** Once loaded, the page's composer (or what stands in for it) must show within this. */
  composerMs: number;
}

export const FLOW_LIMITS: FlowLimits = { composerMs: 10_000, appearMs: 10_000, appearWorkingMs: 90_000, settleMs: 5_000 };
const COPY_WAIT_MS = 2_000;
const ADDRESS_WAIT_MS = 10_000;
/** How often the flow tries to clear the same kind of obstacle before it gives up. */
const OBSTACLE_ROUNDS = 4;

/** Where the flow tells what it did or saw that a person may want to know. */
export type Notes = (note: AgentNote) => void;

/** What each role is called when it is missing. */
const ROLE_WORDS: Record<Role, string> = {
  composer: 'the composer',
  send: 'the send control',
  stop: 'the stop control',
  assistantTurn: 'the answer',
  answer: "the answer's text",
  finished: "the answer's finished signal",
  copy: 'the copy control',
  loginWall: 'the login wall',
  limitBanner: 'the usage-limit notice',
  errorCard: 'the error notice',
  refusal: 'the refusal notice',
  challenge: 'the verification challenge',
  preferFirst: "the A/B chooser's first answer",
  chatMode: 'the Chat mode toggle',
  dialogClose: "the dialog's close control",
};

/** The failure of a page that no longer has what the pack says it has. */
export function siteChanged(site: ProviderSite, role: Role, detail?: string): AgentFailure {
  return new AgentFailure('site_changed', `${site.name}: cannot find ${ROLE_WORDS[role]}${detail ? ` (${detail})` : ''}.`);
}

export function newChatUrl(site: ProviderSite): string {
  return new URL(site.newChatPath, site.baseUrl).href;
}

/** Opens a fresh chat, ready for the next prompt. */
export async function openNewChat(page: Page, site: ProviderSite): Promise<void> {
  await page.goto(newChatUrl(site), { waitUntil: 'domcontentloaded' });
}

/**
 * Waits until the page shows its composer, clearing what stands in the way, or throws what
 * stands in the way for good (a login wall, a challenge, a limit notice) — or that the
 * composer is missing from a page that has loaded.
 */
export async function waitUntilReady(page: Page, site: ProviderSite, notes: Notes = () => {}, limits: FlowLimits = FLOW_LIMITS): Promise<void> {
  if (site.loginUrl.test(page.url())) throw new AgentFailure('logged_out', `${site.name} asks to log in.`);
  await page.waitForLoadState('load', { timeout: PAGE_LOAD_MS }).catch(() => {
    throw new AgentFailure('provider_error', `${site.name}: the page did not finish loading in ${PAGE_LOAD_MS / 1000} s.`);
  });
  for (let round = 0; round <= OBSTACLE_ROUNDS; round++) {
    const state = await page
      .waitForFunction(
        (pack: PagePack) => {
          const h = window.__chatbridge;
          if (!h) return null;
          const blocked = h.blocker(pack);
          if (blocked) return blocked;
          if (h.find(pack.composer)) return 'ready';
          return h.obstacle(pack) ? 'obstacle' : null;
        },
        site.page,
        { timeout: limits.composerMs },
      )
      .then((h) => h.jsonValue() as Promise<TurnProblem | 'ready' | 'obstacle'>)
      .catch(() => null);
    if (site.loginUrl.test(page.url())) throw new AgentFailure('logged_out', `${site.name} asks to log in.`);
    if (state === null) throw siteChanged(site, 'composer', 'the page loaded without it');
    if (typeof state === 'object') throw failureFor(state, site);
    await clearObstacles(page, site, notes);
    if (state === 'ready') return;
  }
  throw siteChanged(site, 'composer', 'something keeps covering the page');
}

/**
 * Clears what stands between the flow and the page, logging each step: an A/B chooser
 * (keep the first answer), a mode toggle off Chat, a modal dialog or an overlay over the
 * composer (Escape, then its own close control). Never clicks through an overlay: one that
 * will not go is a failure.
 */
export async function clearObstacles(page: Page, site: ProviderSite, notes: Notes): Promise<void> {
  let last = null as Obstacle | null;
  for (let round = 0; round < OBSTACLE_ROUNDS; round++) {
    const obstacle = await page.evaluate((pack: PagePack) => window.__chatbridge!.obstacle(pack), site.page);
    if (!obstacle) return;
    const what = obstacle.text ? `"${obstacle.text.slice(0, 80)}"` : '';
    if (obstacle.kind === 'dialog' || obstacle.kind === 'overlay') {
      if (last?.kind === obstacle.kind && last.text === obstacle.text) {
        // Escape did nothing last round: its own close control, if it has one.
        if (!(await clickObstacle(page, site, obstacle))) break;
        notes({ level: 'info', message: `closed ${obstacle.kind === 'dialog' ? 'a dialog' : 'an overlay'} ${what} with its close control.` });
      } else {
        await page.keyboard.press('Escape');
        notes({ level: 'info', message: `pressed Escape on ${obstacle.kind === 'dialog' ? 'a dialog' : 'an overlay'} ${what}.` });
      }
    } else {
      if (!(await clickObstacle(page, site, obstacle))) break;
      notes({
        level: 'info',
        message: obstacle.kind === 'chooser' ? 'kept the first answer of an A/B chooser.' : 'switched the mode toggle to Chat.',
      });
    }
    last = obstacle;
    await page.waitForTimeout(250);
  }
  const left = await page.evaluate((pack: PagePack) => window.__chatbridge!.obstacle(pack), site.page);
  if (left) {
    throw new AgentFailure('site_changed', `${site.name}: ${left.kind === 'overlay' ? 'something covers the composer' : `a ${left.kind} stays in the way`}${left.text ? ` ("${left.text.slice(0, 80)}")` : ''} and cannot be closed.`);
  }
}

async function clickObstacle(page: Page, site: ProviderSite, obstacle: Obstacle): Promise<boolean> {
  const handle = await page.evaluateHandle(([pack, o]) => window.__chatbridge!.obstacleControl(pack, o), [site.page, obstacle] as const);
  const control = handle.asElement();
  if (!control) {
    await handle.dispose();
    return false;
  }
  await control.click({ timeout: 2_000 }).catch(() => {});
  await control.dispose();
  return true;
}

/** Runs one prompt on a page that `waitUntilReady` has vetted. */
export async function runTurn(page: Page, site: ProviderSite, task: AgentTask, notes: Notes = () => {}, limits: FlowLimits = FLOW_LIMITS): Promise<AgentResult> {
  const pack = site.page;
  // What is on the page now is history: the answer is the first assistant turn that is not.
  await page.evaluate((p: PagePack) => window.__chatbridge!.markTurns(p), pack);
  await insertPrompt(page, site, task.prompt);
  await send(page, site, notes);

  const watch: WatchLimits = { appearMs: limits.appearMs, appearWorkingMs: limits.appearWorkingMs, settleMs: limits.settleMs };
  const watching = page.evaluate(([p, scope, w]) => window.__chatbridge!.watchTurn(p, scope, w), [pack, site.turnScope, watch] as const);
  const outcome = await untilAborted(watching, task.signal, () => pressStop(page, pack)).catch(async (error: unknown) => {
    if (task.signal.aborted) throw error;
    // A full-page move mid-turn destroys the watching script: to the login page, or to what
    // the page now is (Cloudflare answers a site's reload with its interstitial).
    if (site.loginUrl.test(page.url())) throw new AgentFailure('logged_out', `${site.name} asks to log in.`);
    const blocked = await blockerAfterMove(page, site);
    if (blocked) throw failureFor(blocked, site);
    throw error;
  });
  if (outcome.kind === 'missing') throw siteChanged(site, outcome.role, outcome.detail);
  if (outcome.kind !== 'finished') throw failureFor(outcome, site);
  if (outcome.by === 'settled') {
    notes({ level: 'warn', message: `no cue finds the ${site.name} answer's finished signal; the answer was taken once the stop control went and the text settled.` });
  }

  await clearObstacles(page, site, notes);
  const text = await readAnswer(page, site);
  if (text.trim() === '') throw siteChanged(site, 'answer', 'the answer read empty');
  await page.waitForURL((url) => site.conversationPath.test(url.pathname), { timeout: ADDRESS_WAIT_MS }).catch(() => {
    throw new AgentFailure('provider_error', `${site.name} did not give the conversation an address.`);
  });
  return { text, conversation: page.url() };
}

async function insertPrompt(page: Page, site: ProviderSite, prompt: string): Promise<void> {
  const composer = await roleHandle(page, site.page, 'composer');
  if (!composer) throw siteChanged(site, 'composer');
  if (site.input === 'fill') {
    // The native value setter plus an input event is what React-controlled textareas
    // listen to, and it takes 100 000 characters at once; Playwright's fill pays per
    // newline. If the page did not take the value, fill it the slow way.
    const taken = await composer.evaluate((el, text) => {
      if (!(el instanceof HTMLTextAreaElement)) return false;
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(el, text);
      el.dispatchEvent(new Event('input', { bubbles: true }));
      return el.value === text;
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
  const holds = await composer.evaluate((el) => ((el as HTMLTextAreaElement).value ?? (el as HTMLElement).innerText ?? '').trim() !== '').catch(() => false);
  await composer.dispose();
  if (!holds) throw siteChanged(site, 'composer', 'it did not take the prompt');
}

/**
 * Sends with the send control, or Enter where none shows, and makes sure the send went:
 * a send that changes nothing means the control is not what the pack says.
 */
async function send(page: Page, site: ProviderSite, notes: Notes): Promise<void> {
  await clearObstacles(page, site, notes);
  // The send button often appears only once the composer has text (the voice button holds
  // its slot before): look for it after inserting, and fall back to Enter.
  const ready = await page
    .waitForFunction(
      (pack: PagePack) => {
        const b = window.__chatbridge!.find(pack.send) as HTMLButtonElement | null;
        return !!b && !b.disabled && b.getAttribute('aria-disabled') !== 'true';
      },
      site.page,
      { timeout: SEND_READY_MS },
    )
    .then(
      () => true,
      () => false,
    );
  const button = ready ? await roleHandle(page, site.page, 'send') : null;
  if (button) {
    await button.click({ timeout: 2_000 }).catch(() => {});
    await button.dispose();
    if (await sent(page, site)) return;
  }
  const composer = await roleHandle(page, site.page, 'composer');
  if (composer) {
    await composer.press('Enter').catch(() => {});
    await composer.dispose();
    if (await sent(page, site)) return;
  }
  throw siteChanged(site, 'send', button ? 'it did nothing' : 'and Enter did not send');
}

/** Whether the page shows that a prompt went: the composer emptied, a new turn, the stop control, or a blocker. */
async function sent(page: Page, site: ProviderSite): Promise<boolean> {
  return page
    .waitForFunction(
      (pack: PagePack) => {
        const h = window.__chatbridge!;
        const composer = h.find(pack.composer) as HTMLTextAreaElement | HTMLElement | null;
        const text = composer ? ((composer as HTMLTextAreaElement).value ?? (composer as HTMLElement).innerText ?? '') : '';
        return !composer || text.trim() === '' || !!h.newTurn(pack) || !!h.find(pack.stop) || !!h.blocker(pack);
      },
      site.page,
      { timeout: SENT_MS },
    )
    .then(
      () => true,
      // The page may have navigated away (a login page): let the turn's watch say so.
      (error: Error) => /Execution context was destroyed|navigation/i.test(error.message),
    );
}

/**
 * The answer as the provider's own Markdown, through its copy control with the page's
 * clipboard intercepted; the DOM converted to Markdown when copying gives nothing.
 */
async function readAnswer(page: Page, site: ProviderSite): Promise<string> {
  const pack = site.page;
  const scope = site.turnScope;
  await page.evaluate(() => window.__chatbridge!.clearClipboard());
  // The new turn; after an A/B pick the page may have re-rendered it, so then the last one.
  const last = await page.evaluate((p: PagePack) => !window.__chatbridge!.newTurn(p), pack);
  const findCopy = () => page.evaluateHandle(([p, s, l]) => window.__chatbridge!.inTurn(p, 'copy', s, l), [pack, scope, last] as const);
  let copy = await findCopy();
  if (!copy.asElement()) {
    // Some sites show a turn's actions only while it is hovered.
    await copy.dispose();
    const turn = await page.evaluateHandle(([p, l]) => {
      const h = window.__chatbridge!;
      return l ? (h.turns(p).at(-1) ?? null) : h.newTurn(p);
    }, [pack, last] as const);
    await turn
      .asElement()
      ?.hover({ timeout: 1_000 })
      .catch(() => {});
    await turn.dispose();
    copy = await findCopy();
  }
  const button = copy.asElement();
  if (button) {
    // A real (trusted) click, without waiting for the button to settle: it is there, and
    // clearObstacles has made sure nothing covers the page.
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
    ([p, l]) => {
      const h = window.__chatbridge!;
      const turn = l ? (h.turns(p).at(-1) ?? null) : h.newTurn(p);
      return turn ? h.answerMarkdown(p, turn) : '';
    },
    [pack, last] as const,
  );
}

/** What stands in the way on the page a mid-turn move led to, once it has loaded; null if nothing (or it cannot tell). */
async function blockerAfterMove(page: Page, site: ProviderSite): Promise<TurnProblem | null> {
  return page
    .waitForLoadState('domcontentloaded', { timeout: PAGE_LOAD_MS })
    .then(() => page.evaluate((p: PagePack) => window.__chatbridge?.blocker(p) ?? null, site.page))
    .catch(() => null);
}

async function pressStop(page: Page, pack: PagePack): Promise<void> {
  const stop = await roleHandle(page, pack, 'stop').catch(() => null);
  await stop?.click({ timeout: 2_000 }).catch(() => {});
  await stop?.dispose();
}

async function roleHandle(page: Page, pack: PagePack, role: Role): Promise<ElementHandle<Element> | null> {
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
      return new AgentFailure('rate_limited', outcome.text, limitLiftsAt(site.limitReset, outcome.text, new Date()) ?? undefined);
    case 'loginWall':
      return new AgentFailure('logged_out', `${site.name} asks to log in.`);
    case 'challenge':
      return new AgentFailure('challenge', `${site.name} shows a verification challenge; solve it in the agent's window.`);
  }
}
