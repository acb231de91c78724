/**
 * The thin flow that drives any provider's page through its selector pack: open the right
 * conversation, clear what stands in the way, insert the prompt whole, send, wait for the
 * first new assistant turn to end, read the answer as Markdown, and capture the
 * conversation's address. When a role the flow needs cannot be found by any cue, it fails
 * within seconds with `site_changed` naming the role, instead of waiting for a timeout.
 */
import type { ElementHandle, Page } from 'playwright-core';
import { AccountLocked, AgentFailure, type AgentNote, type AgentResult, type AgentTask } from '../../main/core/agent.js';
import { hasVisibleText } from '../../main/core/text.js';
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
 * ... or, while the page shows it is at work on it (its send control busy), up to this: a
 * send pressed a second time too early is the same prompt sent twice.
 */
const SENT_WORKING_MS = 45_000;
/** A rich editor may take a synthetic paste on a timer: what it does with it shows within this. */
const PASTE_SETTLE_MS = 1_500;
/** A prompt the composer makes a file is pasted again in at most this many pieces. */
const MAX_PASTE_PIECES = 32;
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
  accountLock: 'the account lock notice',
  consent: "the consent banner's least permissive choice",
  attachment: 'the attachment in the composer',
  accountPicker: "the account picker's saved account",
};

/** The failure of a page that no longer has what the pack says it has. */
export function siteChanged(site: ProviderSite, role: Role, detail?: string): AgentFailure {
  return new AgentFailure('site_changed', `${site.name}: cannot find ${ROLE_WORDS[role]}${detail ? ` (${detail})` : ''}.`);
}

/**
 * What stands in the way for good, looked for before anything is pressed: a challenge, an
 * account lock, a login wall or a limit notice, by the pack's cues or, for a lock or a limit
 * in a dialog or over the composer, by its words (page-helpers/obstacles.ts): a notice to
 * heed, never to close and send again. Null when the page shows none.
 */
export async function pageProblem(page: Page, site: ProviderSite): Promise<TurnProblem | null> {
  return page.evaluate((pack: PagePack) => window.__chatbridge?.blocker(pack) ?? null, site.page).catch(() => null);
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
  let picked = false;
  for (let round = 0; round <= OBSTACLE_ROUNDS; round++) {
    const state = await page
      .waitForFunction(
        (pack: PagePack) => {
          const h = window.__chatbridge;
          if (!h) return null;
          if (h.find(pack.composer)) return h.blocker(pack) ? 'blocked' : 'ready';
          // "Choose an account to continue" shows a "Log in" beside the saved account: a
          // session one click restores, not a login wall.
          if (h.find(pack.accountPicker)) return 'picker';
          if (h.blocker(pack)) return 'blocked';
          return h.obstacle(pack) ? 'obstacle' : null;
        },
        site.page,
        { timeout: limits.composerMs },
      )
      .then((h) => h.jsonValue() as Promise<'blocked' | 'ready' | 'obstacle' | 'picker'>)
      .catch(() => null);
    if (site.loginUrl.test(page.url())) throw new AgentFailure('logged_out', `${site.name} asks to log in.`);
    if (state === null) throw siteChanged(site, 'composer', 'the page loaded without it');
    if (state === 'picker') {
      // Once: a picker that comes back after its account was chosen wants the person.
      if (picked) throw new AgentFailure('logged_out', `${site.name} asks to choose the account again after it was chosen; log in again.`);
      picked = true;
      await choosePickerAccount(page, site, notes);
      continue;
    }
    // clearObstacles names what blocks the page before it touches anything.
    await clearObstacles(page, site, notes);
    if (state === 'ready') return;
  }
  throw siteChanged(site, 'composer', 'something keeps covering the page');
}

/** Clicks the saved account on a "Choose an account to continue" page and waits for the page it leads to. */
async function choosePickerAccount(page: Page, site: ProviderSite, notes: Notes): Promise<void> {
  const card = await roleHandle(page, site.page, 'accountPicker');
  if (!card) return;
  const who = await card.evaluate((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 80));
  await card.click({ timeout: 2_000 }).catch(() => {});
  await card.dispose();
  await page.waitForLoadState('load', { timeout: PAGE_LOAD_MS }).catch(() => {});
  notes({ level: 'info', message: `chose the saved account "${who}" on ${site.name}'s "Choose an account to continue" page.` });
}

/**
 * Clears what stands between the flow and the page, logging each step: an A/B chooser
 * (keep the first answer), a mode toggle off Chat, a consent banner (its least permissive
 * choice, once), a modal dialog or an overlay over the composer (Escape, then its own close
 * control). Before anything is pressed, the page is read for what must not be closed (a
 * limit, a lock, a login or a challenge: `pageProblem`), which ends the attempt instead.
 * Never clicks through an overlay: one that will not go is a failure.
 */
export async function clearObstacles(page: Page, site: ProviderSite, notes: Notes): Promise<void> {
  let last = null as Obstacle | null;
  let consentAnswered = false;
  for (let round = 0; round < OBSTACLE_ROUNDS; round++) {
    const problem = await pageProblem(page, site);
    if (problem) throw failureFor(problem, site);
    const obstacle = await page.evaluate((pack: PagePack) => window.__chatbridge!.obstacle(pack), site.page);
    if (!obstacle) return;
    const what = obstacle.text ? `"${obstacle.text.slice(0, 80)}"` : '';
    if ((obstacle.kind === 'dialog' || obstacle.kind === 'overlay') && !consentAnswered) {
      const choice = await answerConsent(page, site);
      if (choice !== null) {
        consentAnswered = true;
        notes({ level: 'info', message: `answered a consent banner with its least permissive choice, "${choice}".` });
        last = obstacle;
        await page.waitForTimeout(250);
        continue;
      }
    }
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
  const problem = await pageProblem(page, site);
  if (problem) throw failureFor(problem, site);
  const left = await page.evaluate((pack: PagePack) => window.__chatbridge!.obstacle(pack), site.page);
  if (left) {
    throw new AgentFailure('site_changed', `${site.name}: ${left.kind === 'overlay' ? 'something covers the composer' : `a ${left.kind} stays in the way`}${left.text ? ` ("${left.text.slice(0, 80)}")` : ''} and cannot be closed.`);
  }
}

/**
 * A consent banner floating over the page (cookie consent, not a dialog) is answered as a
 * careful person would: its least permissive choice (the pack's `consent`: "Reject
 * non-essential", "Necessary only", "Decline"). Returns the choice's words, or null when
 * there is no such banner.
 */
async function answerConsent(page: Page, site: ProviderSite): Promise<string | null> {
  const handle = await page.evaluateHandle((pack: PagePack) => {
    const choice = window.__chatbridge!.find(pack.consent);
    for (let at = choice; at && at !== document.body; at = at.parentElement) {
      const position = window.getComputedStyle(at).position;
      if (position === 'fixed' || position === 'sticky') return choice;
    }
    // A "Decline" that is part of the page itself is not a banner's choice.
    return null;
  }, site.page);
  const choice = handle.asElement();
  if (!choice) {
    await handle.dispose();
    return null;
  }
  const words = await choice.evaluate((el) => (el.getAttribute('aria-label') ?? el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60));
  await choice.click({ timeout: 2_000 }).catch(() => {});
  await choice.dispose();
  return words;
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
  await insertPrompt(page, site, task.prompt, notes);
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
  const other = await nonTextAnswer(page, site);
  if (other) throw new AgentFailure('not_text', `${site.name} answered with ${other}, not text; ChatBridge hands back text answers only.`);
  const text = await readAnswer(page, site);
  if (text.trim() === '') throw siteChanged(site, 'answer', 'the answer read empty');
  await page.waitForURL((url) => site.conversationPath.test(url.pathname), { timeout: ADDRESS_WAIT_MS }).catch(() => {
    throw new AgentFailure('provider_error', `${site.name} did not give the conversation an address.`);
  });
  return { text, conversation: page.url() };
}

async function insertPrompt(page: Page, site: ProviderSite, prompt: string, notes: Notes): Promise<void> {
  // The caller's own text, not the site, when it shows nothing: never a changed site.
  if (!hasVisibleText(prompt)) throw new AgentFailure('rejected', 'The prompt has no visible text to type.');
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
    const pasted = await paste(page, site, composer, prompt);
    if (pasted === 'attachment') await pasteInPieces(page, site, composer, prompt, notes);
    if (pasted === 'ignored') {
      // An editor that ignores synthetic paste data gets the browser's own text insertion,
      // into the editor itself.
      await composer.focus();
      await page.keyboard.insertText(prompt);
    }
  }
  const holds = await composer.evaluate((el) => ((el as HTMLTextAreaElement).value ?? (el as HTMLElement).innerText ?? '').trim() !== '').catch(() => false);
  await composer.dispose();
  if (!holds) throw siteChanged(site, 'composer', 'it did not take the prompt');
}

/**
 * Pastes `text` at the composer's caret, and says what the editor made of it once it has:
 * some take it on a timer (Quill moves the focus to its paste catcher and back), and text
 * typed before that lands in the catcher.
 */
async function paste(page: Page, site: ProviderSite, composer: ElementHandle<Element>, text: string): Promise<'text' | 'attachment' | 'ignored'> {
  await composer.evaluate((el, t) => {
    (el as HTMLElement).focus();
    const data = new DataTransfer();
    data.setData('text/plain', t);
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
  return pasteResult(page, site);
}

/**
 * The composer made the prompt a file ("Pasted markdown") and left the editor empty. Sent as
 * it is, the site may not take the file's words as the prompt, and typed beside it the prompt
 * goes twice: the file is removed (its own remove control) and the prompt pasted again in
 * pieces short enough to stay text, halved until they do. Fails before anything is sent
 * when the file will not go or the pieces would be too many.
 */
async function pasteInPieces(page: Page, site: ProviderSite, composer: ElementHandle<Element>, prompt: string, notes: Notes): Promise<void> {
  const chars = Array.from(prompt);
  for (let pieces = 2; pieces <= MAX_PASTE_PIECES; pieces *= 2) {
    await unattach(page, site);
    // What earlier pieces of a try that made a file left in the editor goes first.
    await composer.focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    const size = Math.ceil(chars.length / pieces);
    let made: 'text' | 'attachment' | 'ignored' = 'text';
    for (let at = 0; at < chars.length && made === 'text'; at += size) made = await paste(page, site, composer, chars.slice(at, at + size).join(''));
    if (made === 'text') {
      notes({ level: 'info', message: `${site.name} made the pasted prompt a file; removed it and pasted the prompt in ${pieces} pieces instead.` });
      return;
    }
  }
  await unattach(page, site);
  throw new AgentFailure('provider_error', `${site.name} makes even a ${MAX_PASTE_PIECES}th of the prompt a file; nothing was sent.`);
}

/**
 * After a synthetic paste: `text` once the composer holds text, `attachment` once the
 * composer made the prompt a file instead (its editor left empty), `ignored` when neither
 * shows and the editor has the focus back. Waits for the page's own timers to run first.
 */
async function pasteResult(page: Page, site: ProviderSite): Promise<'text' | 'attachment' | 'ignored'> {
  return page
    .waitForFunction(
      ([pack, since]) => {
        const h = window.__chatbridge!;
        const composer = h.find(pack.composer) as HTMLElement | null;
        if (composer && (composer.innerText ?? '').trim() !== '') return 'text';
        if (h.find(pack.attachment)) return 'attachment';
        // Nothing yet: wait for the editor to have the focus back, and a moment beyond it for
        // a paste handled on a timer (timers fire in order, so one set before now has run).
        const focused = !!composer && composer.contains(document.activeElement);
        return focused && performance.now() - since > 100 ? 'ignored' : null;
      },
      [site.page, await page.evaluate(() => performance.now())] as const,
      { timeout: PASTE_SETTLE_MS, polling: 20 },
    )
    .then((h) => h.jsonValue() as Promise<'text' | 'attachment' | 'ignored'>)
    .catch(() => 'ignored' as const);
}

/** Removes the file the composer made of a paste, with its own remove control; one that will not go fails the attempt before anything is sent. */
async function unattach(page: Page, site: ProviderSite): Promise<void> {
  const handle = await page.evaluateHandle((pack: PagePack) => {
    const file = window.__chatbridge!.find(pack.attachment);
    const controls = Array.from(file?.querySelectorAll('button, [role="button"]') ?? []);
    return controls.find((b) => /remove|delete|entfernen|supprimer|eliminar|remover|удалить|删除|削除|^\s*[×✕]\s*$/i.test(b.getAttribute('aria-label') ?? b.textContent ?? '')) ?? null;
  }, site.page);
  const remove = handle.asElement();
  if (remove) await remove.click({ timeout: 2_000 }).catch(() => {});
  await handle.dispose();
  const gone = await page
    .waitForFunction((pack: PagePack) => !window.__chatbridge!.find(pack.attachment), site.page, { timeout: 2_000 })
    .then(
      () => true,
      () => false,
    );
  if (!gone) throw new AgentFailure('provider_error', `${site.name} made the prompt a file attachment that cannot be removed; nothing was sent.`);
}

/**
 * Sends with the send control, or Enter where none shows, and makes sure the send went:
 * a send that changes nothing means the control is not what the pack says. Enter follows a
 * click only when nothing shows that the click sent: the prompt still in the composer, no
 * new turn, no file made of it, and the page not at work on it.
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
    const after = await sent(page, site);
    if (after === 'sent') return;
    if (after === 'unclear') {
      throw new AgentFailure('provider_error', `${site.name}: the send did not show as sent, and the prompt is no longer in the composer; not sent again.`);
    }
  }
  const composer = await roleHandle(page, site.page, 'composer');
  if (composer) {
    await composer.press('Enter').catch(() => {});
    await composer.dispose();
    if ((await sent(page, site)) === 'sent') return;
  }
  throw siteChanged(site, 'send', button ? 'it did nothing' : 'and Enter did not send');
}

/**
 * Whether the page shows that a prompt went (`sent`: the composer emptied, a new turn, the
 * stop control, or a blocker), within SENT_MS, or within SENT_WORKING_MS while the page is
 * at work (its send control disabled with the prompt in the composer, or busy). `unsent`:
 * the prompt still sits in the composer and nothing shows it went; `unclear`: anything else
 * (the composer empty but a file in it), where sending again could send twice.
 */
async function sent(page: Page, site: ProviderSite): Promise<'sent' | 'unsent' | 'unclear'> {
  const started = Date.now();
  return page
    .waitForFunction(
      ([pack, since, quiet, working]) => {
        const h = window.__chatbridge!;
        const composer = h.find(pack.composer) as HTMLTextAreaElement | HTMLElement | null;
        const text = composer ? ((composer as HTMLTextAreaElement).value ?? (composer as HTMLElement).innerText ?? '') : '';
        const attached = !!h.find(pack.attachment);
        if (h.newTurn(pack) || h.find(pack.stop) || h.blocker(pack)) return 'sent';
        if (!composer || (text.trim() === '' && !attached)) return 'sent';
        const waited = Date.now() - since;
        const button = h.find(pack.send) as HTMLButtonElement | null;
        const busy = (!!button && (button.disabled || button.getAttribute('aria-disabled') === 'true')) || !!document.querySelector('form [aria-busy="true"]');
        if (waited < quiet || (busy && waited < working)) return null;
        return text.trim() === '' ? 'unclear' : 'unsent';
      },
      [site.page, started, SENT_MS, SENT_WORKING_MS] as const,
      { timeout: SENT_WORKING_MS + 5_000, polling: 100 },
    )
    .then(
      (h) => h.jsonValue() as Promise<'sent' | 'unsent' | 'unclear'>,
      // The page may have navigated away (a login page): let the turn's watch say so. A page
      // that died is the browser's failure, not the send's.
      (error: Error) => {
        if (/Execution context was destroyed|navigation/i.test(error.message)) return 'sent' as const;
        throw error;
      },
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

/**
 * What the answer is when it is not text: a generated file (Qwen's PDF card), an image or a
 * canvas, and no words beside it. Null for an answer with text. The site did nothing wrong
 * and the page is as the pack says: the answer is simply not one ChatBridge can hand back.
 */
async function nonTextAnswer(page: Page, site: ProviderSite): Promise<string | null> {
  return page.evaluate((pack: PagePack) => {
    const h = window.__chatbridge!;
    const turn = h.newTurn(pack) ?? h.turns(pack).at(-1) ?? null;
    if (!turn) return null;
    // The card may sit beside the answer's (empty) Markdown rather than in it.
    const answer = h.find(pack.answer, turn) ?? turn;
    const FILE = 'a[download], [download], [data-testid*="file" i], [class*="file-card" i], [class*="file-preview" i], [class*="attachment" i]';
    const kinds: [string, string][] = [
      [FILE, 'a file'],
      ['canvas, [data-testid*="canvas" i], [class*="canvas" i]', 'a canvas'],
      ['img, [role="img"]:not(svg)', 'an image'],
    ];
    // In the answer, any of them; elsewhere in the turn only a file card (an avatar or an icon
    // beside an answer that read empty is no answer, and says nothing of the site).
    const places: [Element, [string, string][]][] = [
      [answer, kinds],
      [turn, kinds.slice(0, 1)],
    ];
    let found: [string, string] | undefined;
    let item: Element | undefined;
    for (const [place, wanted] of places) {
      for (const kind of wanted) {
        item = Array.from(place.querySelectorAll(kind[0])).find((el) => el.getClientRects().length > 0);
        if (item) {
          found = kind;
          break;
        }
      }
      if (found) break;
    }
    if (!found || !item) return null;
    // Words beside it make the answer text after all.
    const rest = answer.cloneNode(true) as Element;
    for (const el of Array.from(rest.querySelectorAll(kinds.map(([css]) => css).join(', ')))) el.remove();
    if ((rest.textContent ?? '').trim() !== '') return null;
    // Its name, from the card itself (the turn's other text, a status line, is not part of it).
    const card = item.closest('[class*="file-card" i], [data-testid*="file" i]') ?? item;
    const name = card.getAttribute('download') || /[\w.-]+\.(?:pdf|docx?|xlsx?|pptx?|csv|zip|md|txt|png|jpe?g|svg|html?)\b/i.exec(card.textContent ?? '')?.[0];
    return name ? `${found[1]} ("${name}")` : found[1];
  }, site.page);
}

/** What stands in the way on the page a mid-turn move led to, once it has loaded; null if nothing (or it cannot tell). */
async function blockerAfterMove(page: Page, site: ProviderSite): Promise<TurnProblem | null> {
  return page
    .waitForLoadState('domcontentloaded', { timeout: PAGE_LOAD_MS })
    .then(() => pageProblem(page, site))
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
    case 'accountLock':
      return new AccountLocked(`${site.name} says the account needs its owner: "${outcome.text.slice(0, 160)}". Nothing more is sent from it until a person checks it.`);
  }
}
