/**
 * Clearing what stands between the flow and the composer, as a careful person would: what
 * must not be closed (a limit, a lock, a login, a challenge) is read first and ends the
 * attempt; a consent banner gets its least permissive choice; a chooser, a mode toggle, a
 * dialog or an overlay its own control.
 */
import { AgentFailure } from '../../main/core/agent.js';
import { pause, type FlowContext } from './flow-context.js';
import type { InTheWay, Obstacle } from './page-helpers.js';
import { heeded, standingProblem } from './fresh-page.js';
import { failureFor } from './page-facts.js';
import { pageWorld } from './page-world.js';

/** How often the flow tries to clear the same kind of obstacle before it gives up. */
export const OBSTACLE_ROUNDS = 4;

/** A press on an obstacle is given this long to show what it did before the page is read again. */
const PRESS_SETTLE_MS = 250;

/**
 * Clears what stands between the flow and the page, logging each step: an A/B chooser
 * (keep the first answer), a mode toggle off Chat, a consent banner (its least permissive
 * choice, once), a modal dialog or an overlay over the composer (Escape, then its own close
 * control). Before anything is pressed, the page is read for what must not be closed (a
 * limit, a lock, a login or a challenge: `inTheWay`), which ends the attempt instead.
 * Never clicks through an overlay: one that will not go is a failure. `seen`: what a look
 * just made found in the way (null: nothing), taken for the first round's look.
 */
export async function clearObstacles(ctx: FlowContext, seen?: InTheWay | null): Promise<void> {
  const { page, site, pack, notes } = ctx;
  let last = null as Obstacle | null;
  let consentAnswered = false;
  for (let round = 0; round < OBSTACLE_ROUNDS; round++) {
    const obstacle = await inTheWay(ctx, round === 0 ? seen : undefined);
    if (!obstacle) return;
    const what = obstacle.text ? `"${obstacle.text.slice(0, 80)}"` : '';
    if ((obstacle.kind === 'dialog' || obstacle.kind === 'overlay') && !consentAnswered) {
      const choice = await answerConsent(ctx);
      if (choice !== null) {
        consentAnswered = true;
        notes({ level: 'info', message: `answered a consent banner with its least permissive choice, "${choice}".` });
        last = obstacle;
        await pause(ctx, PRESS_SETTLE_MS);
        continue;
      }
    }
    if (obstacle.kind === 'dialog' || obstacle.kind === 'overlay') {
      if (last?.kind === obstacle.kind && last.text === obstacle.text) {
        // Escape did nothing last round: its own close control, if it has one.
        if (!(await clickObstacle(ctx, obstacle))) break;
        notes({ level: 'info', message: `closed ${obstacle.kind === 'dialog' ? 'a dialog' : 'an overlay'} ${what} with its close control.` });
      } else {
        await page.keyboard.press('Escape');
        notes({ level: 'info', message: `pressed Escape on ${obstacle.kind === 'dialog' ? 'a dialog' : 'an overlay'} ${what}.` });
      }
    } else {
      if (!(await clickObstacle(ctx, obstacle))) break;
      notes({
        level: 'info',
        message: obstacle.kind === 'chooser' ? 'kept the first answer of an A/B chooser.' : 'switched the mode toggle to Chat.',
      });
    }
    last = obstacle;
    await pause(ctx, PRESS_SETTLE_MS);
  }
  const problem = await standingProblem(ctx);
  if (problem) throw failureFor(problem, site);
  const left = await pageWorld(page).run((h, json) => h.obstacle(h.pack(json)), pack);
  if (left) {
    throw new AgentFailure('site_changed', `${site.name}: ${left.kind === 'overlay' ? 'something covers the composer' : `a ${left.kind} stays in the way`}${left.text ? ` ("${left.text.slice(0, 80)}")` : ''} and cannot be closed.`);
  }
}

/**
 * What stands in the way for good, thrown (a wall or a lock beside the conversation only once
 * a fresh page confirms it: `heeded`), else the obstacle to clear first, or null. One look at
 * the page when nothing is wrong; none when the caller's own look (`seen`) just made it.
 */
async function inTheWay(ctx: FlowContext, seen?: InTheWay | null): Promise<Obstacle | null> {
  const { page, site, pack } = ctx;
  const world = pageWorld(page);
  const found = seen !== undefined ? seen : await world.run((h, json) => h.inTheWay(h.pack(json)), pack);
  if (!found) return null;
  if (!found.problem) return found.obstacle;
  const standing = await heeded(ctx, found.problem);
  if (standing) throw failureFor(standing, site);
  // Not the page's own notice after all (now skipped): what else is in the way.
  return world.run((h, json) => h.obstacle(h.pack(json)), pack);
}

/**
 * A consent banner floating over the page (cookie consent, not a dialog) is answered as a
 * careful person would: its least permissive choice (the pack's `consent`: "Reject
 * non-essential", "Necessary only", "Decline"). Returns the choice's words, or null when
 * there is no such banner.
 */
async function answerConsent({ page, pack }: FlowContext): Promise<string | null> {
  const choice = await pageWorld(page).element((h, json) => {
    const choice = h.find(h.pack(json).consent);
    for (let at = choice; at && at !== document.body; at = at.parentElement) {
      const position = window.getComputedStyle(at).position;
      if (position === 'fixed' || position === 'sticky') return choice;
    }
    // A "Decline" that is part of the page itself is not a banner's choice.
    return null;
  }, pack);
  if (!choice) return null;
  const words = await choice.evaluate((el) => (el.getAttribute('aria-label') ?? el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60));
  await choice.click({ timeout: 2_000 }).catch(() => {});
  await choice.dispose();
  return words;
}

async function clickObstacle({ page, pack }: FlowContext, obstacle: Obstacle): Promise<boolean> {
  const control = await pageWorld(page).element((h, [json, o]) => h.obstacleControl(h.pack(json), o), [pack, obstacle] as const);
  if (!control) return false;
  await control.click({ timeout: 2_000 }).catch(() => {});
  await control.dispose();
  return true;
}
