/**
 * A second look before an agent is set aside. A login wall or an account lock that the
 * working page shows beside a conversation, in no dialog that blocks the page, may be the
 * page's own words: a chat titled with its prompt ("Account locked"), a header. It counts
 * only if a fresh page of the site, opened in another tab of the same browser, shows a wall
 * or a lock too; the working page and its answer are left as they are meanwhile, and nothing
 * is sent from the fresh page. If it shows none, the page helpers skip what they saw
 * (`acquit`) and the watch goes on. A limit is never looked at twice: it is heeded as seen.
 */
import type { Page } from 'playwright-core';
import { inPage, waitUntil, type FlowContext } from './flow-context.js';
import { movedAway, pageLook, pageProblem } from './page-facts.js';
import type { TurnOutcome, TurnProblem, WatchLimits } from './page-helpers.js';
import { pageWorld } from './page-world.js';
import { newChatUrl, type ProviderSite } from './site.js';
import { modelReading } from './variant-pack.js';

/** The page must finish loading within this. */
export const PAGE_LOAD_MS = 30_000;
/** A fresh page shows its composer, or what stands in its place, within this once loaded (FlowLimits.composerMs). */
const FRESH_READY_MS = 10_000;
/** After a mid-turn move, how many looks 300 ms apart must find nothing before nothing blocks the page. */
const CALM_LOOKS = 3;
const CALM_LOOK_MS = 300;
/**
 * A watch whose page keeps showing new walls beside its conversation that fresh pages do not
 * show (an answer re-rendered as it streams, that the pack does not know as one) opens no
 * more fresh pages after this many, each a page load of the account: for the rest of the
 * turn, what its page shows so is its own. The next fresh chat is looked at as ever.
 */
const MOST_FRESH_LOOKS = 3;

/**
 * What stands in the way for good on `page` now (pageProblem), a wall or a lock beside the
 * conversation only once a fresh page confirms it; null when nothing does.
 */
export async function standingProblem(ctx: FlowContext): Promise<TurnProblem | null> {
  const problem = await pageProblem(ctx);
  return problem && heeded(ctx, problem);
}

/**
 * Watches the new turn (the page helpers' watchTurn; `markerExpected`: the agent has seen the
 * finished signal before) until it ends; a wall or a lock beside the conversation that a
 * fresh page does not show does not end it. Once the signal aborts (the job is cancelled or
 * timed out) the next outcome is the last.
 */
export async function watchTurn(ctx: FlowContext, limits: WatchLimits, markerExpected: boolean): Promise<TurnOutcome> {
  const { page, site, pack } = ctx;
  const reading = modelReading(site.variants);
  for (let looks = 1; ; looks++) {
    const outcome = await pageWorld(page).run(
      (h, [json, scope, w, expected, r]) => h.watchTurn(h.pack(json), scope, w, expected, r),
      [pack, site.turnScope, limits, markerExpected, reading] as const,
    );
    if (!('confirm' in outcome) || !outcome.confirm || ctx.signal.aborted) return outcome;
    if (looks > MOST_FRESH_LOOKS) await acquit(ctx);
    else {
      const standing = await heeded(ctx, outcome);
      if (standing) return standing;
    }
  }
}

/** `problem` as the account has it: as seen, unless it is a wall or a lock that only a fresh page can confirm. */
export async function heeded(ctx: FlowContext, problem: TurnProblem): Promise<TurnProblem | null> {
  const { site, notes } = ctx;
  if (!problem.confirm) return problem;
  if (await isFresh(ctx)) return seenAsIs(problem);
  const fresh = await freshLook(ctx);
  const what = problem.kind === 'loginWall' ? 'a login wall' : 'an account lock';
  if (fresh === undefined) {
    notes({ level: 'warn', message: `${site.name} shows ${what} beside the conversation and no fresh page could be looked at to confirm it: taken as shown.` });
    return seenAsIs(problem);
  }
  if (fresh) return seenAsIs(fresh);
  await acquit(ctx);
  // Its words are left out: they may be the chat's title, made from the prompt.
  notes({ level: 'info', message: `${site.name} showed what looked like ${what} beside the conversation, but a fresh page of the site shows none: part of the page (a chat's title, say), not a notice.` });
  return null;
}

function seenAsIs({ confirm: _confirm, ...problem }: TurnProblem): TurnProblem {
  return problem;
}

/** The page helpers skip, from now on, the walls and locks the page shows in the open now. */
async function acquit({ page, pack }: FlowContext): Promise<void> {
  await pageWorld(page)
    .run((h, json) => h.acquit(h.pack(json)), pack)
    .catch(() => {});
}

/**
 * Whether `page` is a fresh page of the site itself: the new chat, showing no conversation.
 * Anywhere else a conversation may be shown, even one no cue of the pack finds (a redesign).
 */
async function isFresh({ page, site, pack }: FlowContext): Promise<boolean> {
  const [here, fresh] = [new URL(page.url()), new URL(newChatUrl(site))];
  if (here.origin !== fresh.origin || here.pathname !== fresh.pathname) return false;
  return pageWorld(page)
    .run((h, json) => !h.showsConversation(h.pack(json)), pack)
    .catch(() => false);
}

/**
 * What a fresh page of the site shows in the way: the new chat opened in a tab of its own
 * beside the context's page, looked at once it is ready, and closed. Undefined when it cannot
 * tell (no second tab on this host, a page that does not load, an account picker).
 */
async function freshLook(ctx: FlowContext): Promise<TurnProblem | null | undefined> {
  const { site } = ctx;
  // The desktop's embedded view has no tabs to open: the caller keeps what it saw.
  const tab = await ctx.page
    .context()
    .newPage()
    .catch(() => null);
  if (!tab) return undefined;
  const fresh: FlowContext = { ...ctx, page: tab };
  const loginPage = (): TurnProblem | null => (site.loginUrl.test(tab.url()) ? { kind: 'loginWall', text: `${site.name} asks to log in.` } : null);
  try {
    await inPage(ctx, tab.goto(newChatUrl(site), { waitUntil: 'domcontentloaded', timeout: PAGE_LOAD_MS }));
    // The site's login page has no composer: the wait ends when the tab is sent there
    // (by the server, or by the site's script once loaded) instead of running out.
    const look = loginPage() ? null : await Promise.race([pageLook(fresh, FRESH_READY_MS), sentToLogin(tab, site)]);
    if (loginPage()) return loginPage();
    // A page that never got ready, or that asks which account (one click restores it), says nothing of a wall.
    if (look === null || look.state === 'picker') return undefined;
    return (await blockerAfterMove(fresh)) ?? loginPage();
  } catch (error) {
    // A cancel is the job's end, not something the fresh page said.
    if (ctx.signal.aborted) throw error;
    return loginPage() ?? undefined;
  } finally {
    await tab.close().catch(() => {});
  }
}

/** Resolves (with null) once `tab` is on the site's login page; never otherwise. */
function sentToLogin(tab: Page, site: ProviderSite): Promise<null> {
  return tab.waitForURL((url) => site.loginUrl.test(url.href), { waitUntil: 'commit', timeout: FRESH_READY_MS }).then(
    () => null,
    () => new Promise<null>(() => {}),
  );
}

/** What stands in the way on the page a mid-turn move led to, once it has loaded; null if nothing (or it cannot tell). */
export async function blockerAfterMove(ctx: FlowContext): Promise<TurnProblem | null> {
  let nothing = 0;
  // The page's own time (pageTime): the page moves on it, whatever the agent's clock says.
  const seen = await waitUntil(
    ctx,
    async (left): Promise<{ problem: TurnProblem | null } | null> => {
      try {
        await inPage(ctx, ctx.page.waitForLoadState('load', { timeout: Math.max(1, left) }));
        const problem = await pageProblem(ctx);
        if (problem) return { problem };
        // A look may run in the old document before the move commits, or in the new one before
        // its body came: nothing is nothing only when a loaded page shows it several looks running.
        return ++nothing >= CALM_LOOKS ? { problem: null } : null;
      } catch (error) {
        // The look itself ran into the move: look again once the next document is there.
        if (ctx.signal.aborted || !movedAway(error)) return { problem: null };
        nothing = 0;
        return null;
      }
    },
    { within: PAGE_LOAD_MS, every: CALM_LOOK_MS },
  );
  return seen?.problem ?? null;
}
