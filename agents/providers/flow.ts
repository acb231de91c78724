/**
 * The thin flow that drives any provider's page through its selector pack: open the right
 * conversation, clear what stands in the way, insert the prompt whole, send, wait for the
 * first new assistant turn to end, read the answer as Markdown, and capture the
 * conversation's address. When a role the flow needs cannot be found by any cue, it fails
 * within seconds with `site_changed` naming the role, instead of waiting for a timeout.
 *
 * Every step takes one FlowContext (flow-context.ts: the page, the site, the task's signal, …)
 * and waits only through it. Beside it: page-facts.ts (what a notice on the page means, a role's element),
 * obstacle-clearing.ts (what stands in the way, read before anything is pressed),
 * fresh-page.ts (a wall beside the conversation confirmed on a fresh page first),
 * attach-files.ts (a job's files put through the page's own control and seen attached, their
 * uploads done, before the prompt is typed), prompt-input.ts (the prompt put in whole and sent once), sent-prompt.ts (where its answer
 * can be found again, told as it goes), answer-reading.ts (the finished answer read whole) and
 * collect.ts (an answer collected from its conversation reopened, with nothing sent).
 */
import { AgentFailure, CUT_TO_COLLECT, type AgentResult, type AgentTask } from '../../main/core/agent.js';
import { followAnswer } from './answer-deltas.js';
import { ADDRESS_WAIT_MS, readFinishedAnswer } from './answer-reading.js';
import { attachFiles, readyToSend } from './attach-files.js';
import { inPage, untilAborted, type FlowContext } from './flow-context.js';
import { blockerAfterMove, heeded, PAGE_LOAD_MS, watchTurn } from './fresh-page.js';
import { clearObstacles, OBSTACLE_ROUNDS } from './obstacle-clearing.js';
import { failureFor, pageLook, pressRole, roleHandle, siteChanged } from './page-facts.js';
import type { TurnOutcome, WatchLimits } from './page-helpers.js';
import type { Finished } from './page-helpers/types.js';
import { pageWorld } from './page-world.js';
import { insertPrompt, send, SENT_MS } from './prompt-input.js';
import { reportSent } from './sent-prompt.js';
import { newChatUrl, type ProviderSite } from './site.js';
import { chooseVariant } from './variant-choice.js';

/** What a turn is asked to do; its signal is the context's. */
export type TurnTask = Pick<AgentTask, 'prompt' | 'variant' | 'label' | 'onSent' | 'onDelta' | 'attachments'>;

/**
 * What an agent has learnt of its site's finished signal: once the signal has ended one of
 * its answers, an answer without it is news, and the watch asks more of the evidence.
 */
export interface FinishMemory {
  markerSeen: boolean;
}


/** Stop: how long the page has to take a press, how many presses. */
const STOP_TAKEN_MS = 2_000;
const STOP_PRESSES = 3;

/** Opens a fresh chat, ready for the next prompt. */
export async function openNewChat(ctx: FlowContext): Promise<void> {
  await inPage(ctx, ctx.page.goto(newChatUrl(ctx.site), { waitUntil: 'domcontentloaded' }));
}

/**
 * Waits until the page shows its composer, clearing what stands in the way, or throws what
 * stands in the way for good (a login wall, a challenge, a limit notice) — or that the
 * composer is missing from a page that has loaded.
 */
export async function waitUntilReady(ctx: FlowContext): Promise<void> {
  const { page, site } = ctx;
  if (site.loginUrl.test(page.url())) throw new AgentFailure('logged_out', `${site.name} asks to log in.`);
  await inPage(
    ctx,
    page.waitForLoadState('load', { timeout: PAGE_LOAD_MS }).catch(() => {
      throw new AgentFailure('provider_error', `${site.name}: the page did not finish loading in ${PAGE_LOAD_MS / 1000} s.`);
    }),
  );
  let picked = false;
  for (let round = 0; round <= OBSTACLE_ROUNDS; round++) {
    const look = await pageLook(ctx, ctx.limits.composerMs);
    if (site.loginUrl.test(page.url())) throw new AgentFailure('logged_out', `${site.name} asks to log in.`);
    if (look === null) throw siteChanged(site, 'composer', 'the page loaded without it');
    if (look.state === 'picker') {
      // Once: a picker that comes back after its account was chosen wants the person.
      if (picked) throw new AgentFailure('logged_out', `${site.name} asks to choose the account again after it was chosen; log in again.`);
      picked = true;
      await choosePickerAccount(ctx);
      continue;
    }
    // clearObstacles names what blocks the page before it touches anything; the look that
    // found the state found what is in the way.
    await clearObstacles(ctx, look.inTheWay);
    if (look.state === 'ready') return;
  }
  throw siteChanged(site, 'composer', 'something keeps covering the page');
}

/** Clicks the saved account on a "Choose an account to continue" page and waits for the page it leads to. */
async function choosePickerAccount(ctx: FlowContext): Promise<void> {
  const { page, site } = ctx;
  const card = await roleHandle(ctx, 'accountPicker');
  if (!card) return;
  const who = await card.evaluate((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 80));
  await card.click({ timeout: 2_000 }).catch(() => {});
  await card.dispose();
  // The click leads to the next page only after a moment (the site first records the choice),
  // and the picker's own load fired long ago: wait for the picker to go, then for what replaced
  // it to load. waitForFunction looks again in each new document.
  await inPage(
    ctx,
    pageWorld(page)
      .waitFor((h, json) => !h.find(h.pack(json).accountPicker), ctx.pack, { timeout: PAGE_LOAD_MS })
      .catch(() => {}),
  );
  await inPage(ctx, page.waitForLoadState('load', { timeout: PAGE_LOAD_MS }).catch(() => {}));
  ctx.notes({ level: 'info', message: `chose the saved account "${who}" on ${site.name}'s "Choose an account to continue" page.` });
}

/** Runs one prompt on a page that `waitUntilReady` has vetted. */
export async function runTurn(ctx: FlowContext, task: TurnTask, memory: FinishMemory = { markerSeen: false }): Promise<AgentResult> {
  const { page, site, pack, signal } = ctx;
  // A job cancelled or timed out before its prompt went (while the agent opened the chat) is
  // not sent after all: its retry would send it a second time. Once sent, Stop undoes it.
  signal.throwIfAborted();
  // The variant asked for is in force before a word is typed, or nothing is sent.
  await chooseVariant(ctx, task.variant);
  // The job's files are in, each shown attached and uploaded, before a word is typed.
  const attached = await attachFiles(ctx, task.attachments ?? []);
  // What is on the page now is history: the answer is the first assistant turn that is not.
  // Marked as the prompt goes in: the two calls are independent, and the page runs them in
  // the order sent, so the send waits for one round trip to the page, not two.
  const marking = pageWorld(page).run((h, json) => h.markTurns(h.pack(json)), pack);
  marking.catch(() => {}); // thrown where it is awaited, before the send
  // A full-page move mid-turn breaks whatever step runs then (the paste, the send, the
  // watching script): to the login page, or to what the page now is (Cloudflare answers a
  // site's reload with its interstitial). What the page shows is then what happened.
  const whatHappened = async (error: unknown): Promise<never> => {
    if (signal.aborted) throw error;
    // The page refused a file: its notice may read like a limit banner ("upload limit reached"), but it is the file's.
    if (error instanceof AgentFailure && error.kind === 'attachment_failed') throw error;
    if (site.loginUrl.test(page.url())) throw new AgentFailure('logged_out', `${site.name} asks to log in.`);
    const blocked = await blockerAfterMove(ctx);
    const standing = blocked && (await heeded(ctx, blocked));
    if (standing) throw failureFor(standing, site);
    throw error;
  };
  let pressed = false;
  await insertPrompt(ctx, task.prompt)
    .then(async () => {
      const turnsBefore = await marking;
      if (attached) await readyToSend(ctx, attached);
      signal.throwIfAborted(); // cancelled while the prompt was typed: left unsent
      // Kept while Send is looked for, and before it is pressed: not kept, not pressed.
      const kept = reportSent(ctx, task, turnsBefore).then(() => {
        pressed = true;
      });
      kept.catch(() => {}); // thrown where send awaits it
      return send(ctx, kept);
    })
    .catch(async (error: unknown) => {
      // Cancelled while the send was made sure of: the prompt may be on its way, and Stop undoes
      // it once the page shows its stop control.
      if (pressed && signal.aborted) await stopUnlessCollected(ctx, SENT_MS);
      return whatHappened(error);
    });

  // The answer's sure pieces go out as it renders, until the watch ends: what follows is read whole.
  const following = task.onDelta ? followAnswer(ctx, task.onDelta) : null;
  const outcome = await untilAborted(ctx, watchNewTurn(ctx, memory), () => stopUnlessCollected(ctx))
    .catch(whatHappened)
    .finally(() => following?.stop());
  // Stop pressed, a site shows the cut answer as done: that ends nothing but the attempt.
  signal.throwIfAborted();
  if (outcome.kind === 'missing') throw siteChanged(site, outcome.role, outcome.detail);
  if (outcome.kind !== 'finished') throw failureFor(outcome, site);
  const finish = learnFinish(ctx, outcome, memory, task.label);
  const text = await readFinishedAnswer(ctx, outcome.look);
  await inPage(
    ctx,
    page.waitForURL((url) => site.conversationPath.test(url.pathname), { timeout: ADDRESS_WAIT_MS }).catch(() => {
      throw new AgentFailure('provider_error', `${site.name} did not give the conversation an address.`);
    }),
  );
  return { text, conversation: page.url(), modelUsed: outcome.modelUsed, finish };
}

/**
 * What a finished turn teaches `memory` (the signal seen ends the next answers' benefit of the
 * doubt), said in the log when the end came without the signal; its words for the attempt's record.
 */
export function learnFinish({ site, notes }: FlowContext, outcome: Finished, memory: FinishMemory, label: string): string {
  if (outcome.by === 'marker') memory.markerSeen = true;
  const how = finishedHow(site, outcome);
  if (outcome.by === 'evidence') notes({ level: 'warn', message: `${label}: ${how}` });
  return how;
}

/** How the end of an answer was decided, in words for the attempt's record and the log. */
function finishedHow(site: ProviderSite, outcome: Finished): string {
  if (outcome.by === 'marker') return `Finished on ${site.name}'s own finished signal.`;
  const controls = `${outcome.controls} of its own control${outcome.controls === 1 ? '' : 's'}${outcome.copy ? ' (its Copy among them)' : ''}`;
  return (
    `No cue finds ${site.name}'s finished signal${outcome.expected ? ', which had ended its earlier answers' : ''}: the answer was taken as finished ` +
    `once ${controls}${outcome.alreadyShown ? ', there when the watch began, held with' : ' appeared after the writing stopped,'} ` +
    `the text still for ${(outcome.stillMs / 1000).toFixed(1)} s and the stop control gone.`
  );
}

/**
 * Watches the turn `markTurns` left new until it ends (page-helpers/watch.ts, a wall beside
 * the conversation confirmed on a fresh page first: fresh-page.ts); `memory`: whether its
 * finished signal is expected.
 */
export function watchNewTurn(ctx: FlowContext, memory: FinishMemory): Promise<TurnOutcome> {
  const { limits } = ctx;
  const watch: WatchLimits = { appearMs: limits.appearMs, appearWorkingMs: limits.appearWorkingMs, settleMs: limits.settleMs, lostSignalMs: limits.lostSignalMs };
  return watchTurn(ctx, watch, memory.markerSeen);
}

/** A turn cut to be collected later (CUT_TO_COLLECT) goes on answering; any other abort presses Stop (`showsWithin`: pressStop). */
export function stopUnlessCollected(ctx: FlowContext, showsWithin = 0): Promise<void> {
  return ctx.signal.reason === CUT_TO_COLLECT ? Promise.resolve() : pressStop(ctx, showsWithin);
}

/**
 * Presses the stop control. A send cut short by its job's end gives the control `showsWithin`
 * ms to show first (the page may not have taken the send yet): a wait the page runs, after
 * the signal has aborted, so bounded by that alone. Where the control is in view with nothing
 * over it, the press is a person's click at its centre, sent at once: Playwright's careful
 * click waits for frames a loaded machine's renderer may not draw within its time, and a
 * press that never lands leaves the answer running on the account. A press the page did not
 * take (a page still waiting for the site to start the answer) leaves the control up: it is
 * pressed again, and a control still up after the last press is said in the log. Only what
 * the pack knows as Stop is ever pressed: should the answer end in the round trip between the
 * look and the press, what shows in Stop's place is Send over the emptied composer, which
 * sends nothing.
 */
export async function pressStop(ctx: FlowContext, showsWithin = 0): Promise<void> {
  const world = pageWorld(ctx.page);
  const stopLook = (timeout: number) =>
    world
      .waitFor(
        (h, json) => {
          const stop = h.find(h.pack(json).stop);
          return stop ? { point: h.clickPoint(stop) } : null;
        },
        ctx.pack,
        { timeout },
      )
      .catch(() => null);
  let shown = await stopLook(showsWithin);
  for (let press = 0; shown; press++) {
    if (press === STOP_PRESSES) {
      ctx.notes({ level: 'warn', message: `${ctx.site.name}'s Stop still shows after ${STOP_PRESSES} presses: the answer may go on at the site.` });
      return;
    }
    await pressRole(ctx, 'stop', shown.point).catch(() => false);
    const taken = await world.waitFor((h, json) => !h.find(h.pack(json).stop), ctx.pack, { timeout: STOP_TAKEN_MS }).catch(() => null);
    if (taken) return;
    shown = await stopLook(0);
  }
}
