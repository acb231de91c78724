import type { Page } from 'playwright-core';
import { AgentFailure } from '../../main/core/agent.js';
import { PROBE_PROMPT, type RoleCheck, type RoleStatus } from '../../main/core/site-check.js';
import { inPage, type FlowContext } from '../providers/flow-context.js';
import { openNewChat, runTurn, waitUntilReady } from '../providers/flow.js';
import { offeredVariants } from '../providers/variant-choice.js';
import { pageWorld } from '../providers/page-world.js';
import { ROLES, type Role } from '../providers/site.js';

/** Every fresh chat shows these; without them no job can run. */
const PAGE_ROLES: readonly Role[] = ['composer', 'send'];
/** Only an answer shows these (the stop control only while it comes). */
const ANSWER_ROLES: readonly Role[] = ['stop', 'assistantTurn', 'answer', 'finished', 'copy'];
/** The text put in the composer (and taken out again) so that the send control shows. */
const PROBE_TEXT = 'probe';
const SEND_SHOWS_MS = 3_000;
/** A probe answer is one word: a minute is plenty even for a site that thinks first. */
const PROBE_MS = 120_000;

export interface PageInspection {
  roles: RoleCheck[];
  problem: string | null;
  pageUrl: string | null;
  /** The ids of the variants the page's picker and toggles offer now; null when the page could not be looked at or its model picker did not open. */
  variants: string[] | null;
}

/**
 * Looks at a provider's page role by role, as `sites check` reports it: a fresh chat, each
 * role's cue (the send control with a probe text in the composer, never sent), and the
 * control files go in by (`attachments.fileInput`, or `attachments.opener`); with `send`,
 * a probe prompt through the normal flow, watching for the stop control while the answer
 * comes, then the answer's roles. Nothing here changes the agent's state.
 */
export async function inspectSite(ctx: FlowContext, send: boolean): Promise<PageInspection> {
  const { page, site } = ctx;
  const found: Partial<Record<Role, number>> = {};
  let problem: string | null = null;
  let answered = false;
  let variants: string[] | null = null;
  let attach: RoleCheck | null = null;
  await openNewChat(ctx);
  try {
    await waitUntilReady(ctx);
    Object.assign(found, await report(ctx));
    attach = await attachControl(ctx);
    found.send = await withProbeText(ctx, () => pageWorld(page).run((h, json) => h.which(h.pack(json).send), ctx.pack));
    variants = await offeredVariants(ctx);
    if (send) {
      let stopSeen = -1;
      // Seen as it comes and goes, in every frame, beside the turn rather than waited for.
      void pageWorld(page)
        .waitFor((h, json) => h.which(h.pack(json).stop) + 1, ctx.pack, { polling: 'raf', timeout: PROBE_MS })
        .then((n) => (stopSeen = (n ?? 0) - 1), () => {});
      try {
        await runTurn({ ...ctx, signal: AbortSignal.timeout(PROBE_MS) }, { prompt: PROBE_PROMPT, label: 'site-check', variant: null });
        answered = true;
      } catch (error) {
        problem = `The probe prompt failed: ${messageOf(error)}`;
      }
      const after = await report(ctx);
      for (const role of ANSWER_ROLES) found[role] = after[role] ?? -1;
      found.stop = stopSeen;
    }
  } catch (error) {
    // A login wall, a challenge, a missing composer: say so, and report what the page shows.
    problem = messageOf(error);
    Object.assign(found, await report(ctx).catch(() => ({})));
  }
  const statusOf = (role: Role, index: number): RoleStatus => {
    if (index >= 0) return 'found';
    if (PAGE_ROLES.includes(role)) return 'missing';
    if (ANSWER_ROLES.includes(role)) {
      if (!send) return 'needs_send';
      // The stop control may come and go faster than a look; the answer's roles need an answer.
      return role === 'stop' || !answered ? 'not_shown' : 'missing';
    }
    return 'not_shown';
  };
  const roles = ROLES.filter((role) => site.roles[role]).map((role): RoleCheck => {
    const index = found[role] ?? -1;
    const cue = index >= 0 ? site.roles[role]![index] : undefined;
    return { role, status: statusOf(role, index), cue: cue ? { index, kind: cue.kind, css: cue.css } : null };
  });
  if (attach) roles.push(attach);
  return { roles, problem, pageUrl: pageUrlOf(page), variants };
}

/**
 * How files would go in on a fresh chat: the page's own file input (hidden, so no visible
 * role finds it), or the upload menu's opener where the site makes its input only once asked
 * (Gemini). Missing, a job with files fails on this page; its other jobs do not need it.
 */
async function attachControl({ page, site, pack }: FlowContext): Promise<RoleCheck | null> {
  const section = site.attachments;
  if (!section) return null;
  const [role, key] = section.via === 'chooser' ? (['attachments.opener', 'attachOpener'] as const) : (['attachments.fileInput', 'fileInput'] as const);
  const index = await pageWorld(page).run(
    (h, [json, chooser]) => (chooser ? h.which(h.pack(json).attachOpener) : h.fileInputCue(h.pack(json))),
    [pack, section.via === 'chooser'] as const,
  );
  const cue = index >= 0 ? site.page[key]![index] : undefined;
  return { role, status: cue ? 'found' : 'missing', cue: cue ? { index, kind: cue.kind, css: cue.css } : null };
}

function report({ page, site, pack }: FlowContext): Promise<Partial<Record<Role, number>>> {
  return pageWorld(page).run((h, [json, scope]) => h.report(h.pack(json), scope), [pack, site.turnScope] as const);
}

/**
 * Runs `look` while the composer holds a probe text (most sites show their send control
 * only then), and empties the composer again: nothing is sent.
 */
async function withProbeText<T>(ctx: FlowContext, look: () => Promise<T>): Promise<T> {
  const { page, site, pack } = ctx;
  const world = pageWorld(page);
  const composer = await world.element((h, json) => h.find(h.pack(json).composer), pack);
  if (!composer) return look();
  try {
    if (site.input === 'fill') await composer.fill(PROBE_TEXT);
    else {
      await composer.focus();
      await page.keyboard.insertText(PROBE_TEXT);
    }
    await inPage(
      ctx,
      world.waitFor((h, json) => h.which(h.pack(json).send) >= 0, pack, { timeout: SEND_SHOWS_MS }).catch(() => {}),
    );
    return await look();
  } finally {
    if (site.input === 'fill') await composer.fill('').catch(() => {});
    else {
      await composer.evaluate((el) => window.getSelection()?.selectAllChildren(el)).catch(() => {});
      await page.keyboard.press('Backspace').catch(() => {});
    }
    await composer.dispose();
  }
}

function messageOf(error: unknown): string {
  if (error instanceof AgentFailure) return error.message;
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}

function pageUrlOf(page: Page): string | null {
  try {
    const u = new URL(page.url());
    return `${u.origin}${u.pathname}`;
  } catch {
    return null;
  }
}
