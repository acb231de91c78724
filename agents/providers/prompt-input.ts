/**
 * Putting the prompt in the composer whole and sending it once: a paste the editor takes on
 * a timer is waited for, a prompt the composer made a file is pasted again as text, and a
 * send is pressed again only while the prompt still sits in the composer.
 */
import { AgentFailure } from '../../main/core/agent.js';
import { hasVisibleText } from '../../main/core/text.js';
import { inPage, type FlowContext } from './flow-context.js';
import { clearObstacles, OBSTACLE_ROUNDS } from './obstacle-clearing.js';
import type { InTheWay, ViewportPoint } from './page-helpers.js';
import { movedAway, pressRole, roleHandle, siteChanged } from './page-facts.js';
import { pageWorld } from './page-world.js';

/** The send control, when the site shows one only once the composer holds text. */
const SEND_READY_MS = 3_000;

/** After a send, something must show that it went: the prompt gone from the composer, a new turn, the stop control. */
export const SENT_MS = 5_000;

/** A rich editor may take a synthetic paste on a timer: what it does with it shows within this. */
const PASTE_SETTLE_MS = 1_500;

/** A prompt the composer makes a file is pasted again in at most this many pieces. */
const MAX_PASTE_PIECES = 32;

/**
 * Puts the prompt in the composer. Every step runs in the helpers' world (page-world.ts), which
 * finds the composer afresh each time: a Playwright handle would have Playwright load its own
 * script (some 350 KB) into two worlds of every new chat's document, about a tenth of the CPU
 * a short job costs the browser. Handles remain for what only they do (Playwright's fill).
 */
export async function insertPrompt(ctx: FlowContext, prompt: string): Promise<void> {
  const { page, site } = ctx;
  // The caller's own text, not the site, when it shows nothing: never a changed site.
  if (!hasVisibleText(prompt)) throw new AgentFailure('rejected', 'The prompt has no visible text to type.');
  const world = pageWorld(page);
  if (site.input === 'fill') {
    // The native value setter plus an input event is what React-controlled textareas
    // listen to, and it takes 100 000 characters at once; Playwright's fill pays per
    // newline. If the page did not take the value, fill it the slow way.
    const set = await world.run((h, [json, text]) => {
      const el = h.find(h.pack(json).composer);
      if (!el) return 'missing';
      if (!(el instanceof HTMLTextAreaElement)) return 'refused';
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(el, text);
      el.dispatchEvent(new Event('input', { bubbles: true }));
      return el.value === text ? 'taken' : 'refused';
    }, [ctx.pack, prompt] as const);
    if (set === 'missing') throw siteChanged(site, 'composer');
    // Taken: the composer holds the prompt, as the look below would find.
    if (set === 'taken') return;
    await fillSlowly(ctx, prompt);
  } else {
    // Rich editors take a paste whole, newlines included; typing a newline would send early.
    const pasted = await paste(ctx, prompt);
    // Text: the composer holds the prompt, as the look below would find.
    if (pasted === 'text') return;
    if (pasted === 'attachment') await pasteInPieces(ctx, prompt);
    if (pasted === 'ignored') {
      // An editor that ignores synthetic paste data gets the browser's own text insertion,
      // into the editor itself.
      await focusComposer(ctx);
      await page.keyboard.insertText(prompt);
    }
  }
  const holds = await world
    .run((h, json) => {
      const el = h.find(h.pack(json).composer);
      return !!el && ((el as HTMLTextAreaElement).value ?? (el as HTMLElement).innerText ?? '').trim() !== '';
    }, ctx.pack)
    .catch(() => false);
  if (!holds) throw siteChanged(site, 'composer', 'it did not take the prompt');
}

/** Playwright's fill, key by key: for a composer that did not take the value set at once. */
async function fillSlowly(ctx: FlowContext, prompt: string): Promise<void> {
  const composer = await roleHandle(ctx, 'composer');
  if (!composer) throw siteChanged(ctx.site, 'composer');
  await composer.fill(prompt);
  await composer.dispose();
}

/** Gives the composer the focus (a changed site when there is none). */
async function focusComposer(ctx: FlowContext): Promise<void> {
  const found = await pageWorld(ctx.page).run((h, json) => {
    const el = h.find(h.pack(json).composer) as HTMLElement | null;
    el?.focus();
    return !!el;
  }, ctx.pack);
  if (!found) throw siteChanged(ctx.site, 'composer');
}

/**
 * Pastes `text` at the composer's caret, and says what the editor made of it once it has:
 * some take it on a timer (Quill moves the focus to its paste catcher and back), and text
 * typed before that lands in the catcher.
 */
async function paste(ctx: FlowContext, text: string): Promise<'text' | 'attachment' | 'ignored'> {
  const made = await pageWorld(ctx.page).run((h, [json, t]) => {
    const pack = h.pack(json);
    const el = h.find(pack.composer) as HTMLElement | null;
    if (!el) return 'missing';
    el.focus();
    const data = new DataTransfer();
    data.setData('text/plain', t);
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    // An editor that takes the paste in its own handler shows what it made at once.
    if ((el.innerText ?? '').trim() !== '') return 'text';
    return h.pasteCard(pack) ? 'attachment' : 'later';
  }, [ctx.pack, text] as const);
  if (made === 'missing') throw siteChanged(ctx.site, 'composer');
  return made === 'later' ? pasteResult(ctx) : made;
}

/**
 * The composer made the prompt a file ("Pasted markdown") and left the editor empty. Sent as
 * it is, the site may not take the file's words as the prompt, and typed beside it the prompt
 * goes twice: the file is removed (its own remove control) and the prompt pasted again in
 * pieces short enough to stay text, halved until they do. Fails before anything is sent
 * when the file will not go or the pieces would be too many.
 */
async function pasteInPieces(ctx: FlowContext, prompt: string): Promise<void> {
  const { page, site, notes } = ctx;
  const chars = Array.from(prompt);
  for (let pieces = 2; pieces <= MAX_PASTE_PIECES; pieces *= 2) {
    await unattach(ctx);
    // What earlier pieces of a try that made a file left in the editor goes first.
    await focusComposer(ctx);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    const size = Math.ceil(chars.length / pieces);
    let made: 'text' | 'attachment' | 'ignored' = 'text';
    for (let at = 0; at < chars.length && made === 'text'; at += size) made = await paste(ctx, chars.slice(at, at + size).join(''));
    if (made === 'text') {
      notes({ level: 'info', message: `${site.name} made the pasted prompt a file; removed it and pasted the prompt in ${pieces} pieces instead.` });
      return;
    }
  }
  await unattach(ctx);
  throw new AgentFailure('provider_error', `${site.name} makes even a ${MAX_PASTE_PIECES}th of the prompt a file; nothing was sent.`);
}

/**
 * After a synthetic paste: `text` once the composer holds text, `attachment` once the
 * composer made the prompt a file instead (its editor left empty), `ignored` when neither
 * shows and the editor has the focus back. Waits for the page's own timers to run first.
 */
async function pasteResult(ctx: FlowContext): Promise<'text' | 'attachment' | 'ignored'> {
  const world = pageWorld(ctx.page);
  const wait = world
    .waitFor(
      (h, [json, since]): 'text' | 'attachment' | 'ignored' | null => {
        const pack = h.pack(json);
        const composer = h.find(pack.composer) as HTMLElement | null;
        if (composer && (composer.innerText ?? '').trim() !== '') return 'text';
        if (h.pasteCard(pack)) return 'attachment';
        // Nothing yet: wait for the editor to have the focus back, and a moment beyond it for
        // a paste handled on a timer (timers fire in order, so one set before now has run).
        const focused = !!composer && composer.contains(document.activeElement);
        return focused && performance.now() - since > 100 ? 'ignored' : null;
      },
      [ctx.pack, await world.run(() => performance.now(), undefined)] as const,
      { timeout: PASTE_SETTLE_MS, polling: 20 },
    )
    .then((made) => made ?? 'ignored')
    .catch(() => 'ignored' as const);
  return inPage(ctx, wait);
}

/** Removes the file the composer made of a paste, with its own remove control; one that will not go fails the attempt before anything is sent. */
async function unattach(ctx: FlowContext): Promise<void> {
  const { page, site, pack } = ctx;
  const world = pageWorld(page);
  const remove = await world.element((h, json) => {
    const file = h.pasteCard(h.pack(json));
    const controls = Array.from(file?.querySelectorAll('button, [role="button"]') ?? []);
    return controls.find((b) => /remove|delete|entfernen|supprimer|eliminar|remover|удалить|删除|削除|^\s*[×✕]\s*$/i.test(b.getAttribute('aria-label') ?? b.textContent ?? '')) ?? null;
  }, pack);
  await remove?.click({ timeout: 2_000 }).catch(() => {});
  await remove?.dispose();
  const gone = await inPage(
    ctx,
    world.waitFor((h, json) => !h.pasteCard(h.pack(json)), pack, { timeout: 2_000 }).then(
      (went) => !!went,
      () => false,
    ),
  );
  if (!gone) throw new AgentFailure('provider_error', `${site.name} made the prompt a file attachment that cannot be removed; nothing was sent.`);
}

/**
 * Sends with the send control, or Enter where none shows, and makes sure the send went:
 * a send that changes nothing means the control is not what the pack says. Enter follows a
 * click only when nothing shows that the click sent: the prompt still in the composer, no
 * new turn, no file made of it, and the page not at work on it. Nothing is pressed before
 * `kept` resolves (the prompt's going in the job's record, sent-prompt.ts); its rejection is thrown.
 */
export async function send(ctx: FlowContext, kept: Promise<void>): Promise<void> {
  const { site } = ctx;
  // What stands in the way is cleared first (or ends the attempt), and the send control looked for again.
  let ready = await sendLook(ctx);
  for (let round = 0; ready?.inTheWay; round++) {
    if (round === OBSTACLE_ROUNDS) throw siteChanged(site, 'send', 'something keeps covering the page');
    await clearObstacles(ctx, ready.inTheWay);
    ready = await sendLook(ctx);
  }
  await kept;
  const pressed = !!ready && (await pressRole(ctx, 'send', ready.point));
  if (pressed) {
    const after = await sent(ctx);
    if (after === 'sent') return;
    if (after === 'unclear') {
      throw new AgentFailure('provider_error', `${site.name}: the send did not show as sent, and the prompt is no longer in the composer; not sent again.`);
    }
  }
  const focused = await focusComposer(ctx).then(
    () => true,
    () => false,
  );
  if (focused) {
    await ctx.page.keyboard.press('Enter').catch(() => {});
    if ((await sent(ctx)) === 'sent') return;
  }
  throw siteChanged(site, 'send', pressed ? 'it did nothing' : 'and Enter did not send');
}

/** What the send look found: what stands in the way, or Send enabled and where a click presses it (null: not in view, or covered). */
type SendLook = { inTheWay: InTheWay; point?: undefined } | { inTheWay: null; point: ViewportPoint | null };

/**
 * One look, as often as the page draws, until it finds what stands in the way, or the send
 * control enabled: the send button often appears only once the composer has text (the voice
 * button holds its slot before). The look that finds it enabled with nothing in the way says
 * where a click presses it (`clickPoint`). Null when neither shows within SEND_READY_MS: the
 * flow then tries Enter.
 */
function sendLook(ctx: FlowContext): Promise<SendLook | null> {
  return inPage(
    ctx,
    pageWorld(ctx.page)
      .waitFor(
        (h, json) => {
          const pack = h.pack(json);
          const inTheWay = h.inTheWay(pack);
          if (inTheWay) return { inTheWay };
          const b = h.find(pack.send) as HTMLButtonElement | null;
          return b && !b.disabled && b.getAttribute('aria-disabled') !== 'true' ? { inTheWay: null, point: h.clickPoint(b) } : null;
        },
        ctx.pack,
        { timeout: SEND_READY_MS },
      )
      .catch(() => null),
  );
}

/**
 * Whether the page shows that a prompt went (`sent`: the composer emptied, a new turn, the
 * stop control, or a blocker), within SENT_MS, or within `sentWorkingMs` (FlowLimits: 45 s)
 * while the page is at work (its send control disabled with the prompt in the composer, or
 * busy): a send pressed a second time too early is the same prompt sent twice. `unsent`:
 * the prompt still sits in the composer and nothing shows it went; `unclear`: anything else
 * (the composer empty but a file in it), where sending again could send twice.
 */
async function sent(ctx: FlowContext): Promise<'sent' | 'unsent' | 'unclear'> {
  const world = pageWorld(ctx.page);
  const workingMs = ctx.limits.sentWorkingMs;
  // On the page's own clock, at both ends: it keeps counting through a move to a new document
  // (whose performance.now() starts again), and no clock of ours comes into it.
  const wait = world
    .run(() => performance.timeOrigin + performance.now(), undefined)
    .then((started) =>
      world.waitFor(
        (h, [json, since, quiet, working]): 'sent' | 'unsent' | 'unclear' | null => {
          const pack = h.pack(json);
          const composer = h.find(pack.composer) as HTMLTextAreaElement | HTMLElement | null;
          const text = composer ? ((composer as HTMLTextAreaElement).value ?? (composer as HTMLElement).innerText ?? '') : '';
          const attached = !!h.pasteCard(pack);
          if (h.newTurn(pack) || h.find(pack.stop) || h.blocker(pack)) return 'sent';
          if (!composer || (text.trim() === '' && !attached)) return 'sent';
          const waited = performance.timeOrigin + performance.now() - since;
          const button = h.find(pack.send) as HTMLButtonElement | null;
          const busy = (!!button && (button.disabled || button.getAttribute('aria-disabled') === 'true')) || !!document.querySelector('form [aria-busy="true"]');
          if (waited < quiet || (busy && waited < working)) return null;
          return text.trim() === '' ? 'unclear' : 'unsent';
        },
        [ctx.pack, started, SENT_MS, workingMs] as const,
        { timeout: workingMs + 5_000, polling: 100 },
      ),
    )
    .then(
      (seen) => {
        if (!seen) throw new Error(`The page did not settle on the send within ${workingMs + 5_000} ms.`);
        return seen;
      },
      // The page may have navigated away (a login page): let the turn's watch say so. A page
      // that died is the browser's failure, not the send's.
      (error: Error) => {
        if (movedAway(error)) return 'sent' as const;
        throw error;
      },
    );
  return inPage(ctx, wait);
}
