/**
 * What the page says, in the flow's terms: the words for a missing role, the failure a
 * notice on the page means, and the element of a role.
 */
import type { ElementHandle } from 'playwright-core';
import { AccountLocked, AgentFailure } from '../../main/core/agent.js';
import { inPage, type FlowContext } from './flow-context.js';
import type { InTheWay, TurnProblem, ViewportPoint } from './page-helpers.js';
import { pageWorld } from './page-world.js';
import type { ProviderSite, Role } from './site.js';

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
  userTurn: 'your message',
  chatTitle: "the chat's title",
  preferFirst: "the A/B chooser's first answer",
  chatMode: 'the Chat mode toggle',
  dialogClose: "the dialog's close control",
  accountLock: 'the account lock notice',
  consent: "the consent banner's least permissive choice",
  attachment: 'the attachment in the composer',
  accountPicker: "the account picker's saved account",
  interim: "the answer's interim words",
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
export async function pageProblem({ page, pack }: FlowContext): Promise<TurnProblem | null> {
  return pageWorld(page)
    .run((h, json) => h.blocker(h.pack(json)), pack)
    .catch(() => null);
}

/**
 * What a loaded page shows, as the flow acts on it: its composer (`ready`), what stands in the
 * way for good (`blocked`), a saved account to pick (`picker`), something to clear first
 * (`obstacle`).
 */
export type PageState = 'blocked' | 'ready' | 'obstacle' | 'picker';

/** A loaded page's state, and what the same look found in the way (null: nothing; a picker's page: not looked for). */
export interface PageLook {
  state: PageState;
  inTheWay?: InTheWay | null;
}

/** What the page shows within `ms`, in one look (for clearObstacles to start from); null when it shows none of the states by then. */
export async function pageLook(ctx: FlowContext, ms: number): Promise<PageLook | null> {
  const wait = pageWorld(ctx.page)
    .waitFor(
      (h, json): PageLook | null => {
        const pack = h.pack(json);
        const composer = h.find(pack.composer);
        // "Choose an account to continue" shows a "Log in" beside the saved account: a
        // session one click restores, not a login wall.
        if (!composer && h.find(pack.accountPicker)) return { state: 'picker' };
        const inTheWay = h.inTheWay(pack);
        if (inTheWay?.problem) return { state: 'blocked', inTheWay };
        if (composer) return { state: 'ready', inTheWay };
        return inTheWay ? { state: 'obstacle', inTheWay } : null;
      },
      ctx.pack,
      { timeout: ms },
    )
    .catch(() => null);
  return inPage(ctx, wait);
}

export function failureFor(outcome: TurnProblem, site: ProviderSite): AgentFailure {
  switch (outcome.kind) {
    case 'errorCard':
      return new AgentFailure('provider_error', `${site.name} showed an error: ${outcome.text}`);
    case 'refusal':
      return new AgentFailure('rejected', `${site.name} refused the prompt: ${outcome.text}`);
    case 'limitBanner':
      // The time it lifts is read by the agent, on its clock (BrowserAgent.classify).
      return new AgentFailure('rate_limited', outcome.text);
    case 'loginWall':
      return new AgentFailure('logged_out', `${site.name} asks to log in.`);
    case 'challenge':
      return new AgentFailure('challenge', `${site.name} shows a verification challenge; solve it in the agent's window.`);
    case 'accountLock':
      return new AccountLocked(`${site.name} says the account needs its owner: "${outcome.text.slice(0, 160)}". Nothing more is sent from it until a person checks it.`);
  }
}

export async function roleHandle({ page, pack }: FlowContext, role: Role): Promise<ElementHandle<Element> | null> {
  return pageWorld(page).element((h, [json, r]) => h.find(h.pack(json)[r]), [pack, role] as const);
}

/** How long Playwright's careful click may wait for a control to be in view, still and on top. */
const CAREFUL_CLICK_MS = 2_000;

/**
 * Clicks the pack's `role` control (Send, Stop); false when it is gone. Where its centre is on
 * screen with nothing on top (`point`, from the look that found it), the click goes there at
 * once: Playwright's own click would first scroll, wait two frames for the control to hold
 * still and check the same hit target, some 25 ms, and on a renderer starved of CPU it ran out
 * of its time with nothing pressed. Anywhere else (scrolled away, covered), that careful click.
 */
export async function pressRole(ctx: FlowContext, role: Role, point: ViewportPoint | null): Promise<boolean> {
  if (point) {
    await pageWorld(ctx.page)
      .press(point)
      .catch(() => {});
    return true;
  }
  const control = await roleHandle(ctx, role);
  if (!control) return false;
  await control.click({ timeout: CAREFUL_CLICK_MS }).catch(() => {});
  await control.dispose();
  return true;
}

/** Whether `error` is a page script cut short by the page's own navigation. */
export function movedAway(error: unknown): boolean {
  return /Execution context was destroyed|navigation/i.test(error instanceof Error ? error.message : String(error));
}
