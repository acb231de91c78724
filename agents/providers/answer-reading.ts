/**
 * Reading a finished answer: what stands in the way cleared first, an answer that is not text
 * told as such, then the answer as the provider's own Markdown, through its Copy with the
 * page's clipboard caught (copy-hook.ts), or its DOM converted when copying gives nothing;
 * an answer that reads empty read again from its conversation loaded anew.
 */
import { AgentFailure } from '../../main/core/agent.js';
import { inPage, type FlowContext } from './flow-context.js';
import { clearObstacles } from './obstacle-clearing.js';
import { siteChanged } from './page-facts.js';
import type { AnswerLook, CopyLook, FinishedLook } from './page-helpers/types.js';
import { pageWorld } from './page-world.js';

/** A press of Copy has this long to put the answer on the clipboard; a careful click of it, this long to be made. */
const COPY_WAIT_MS = 2_000;
const CLICK_MS = 2_000;

/** How long the page may take to give a new conversation its address. */
export const ADDRESS_WAIT_MS = 10_000;

/**
 * The finished answer of the new turn, whole: what stands in the way cleared, one that is not
 * text refused (`not_text`), one that reads empty even from its conversation loaded anew
 * taken for a changed site. When nothing is in the way, which is every job's case, `first`
 * (the look the watch took as the answer ended: page-helpers/answer-look.ts) tells all three,
 * and Copy is pressed next.
 */
export async function readFinishedAnswer(ctx: FlowContext, first: FinishedLook): Promise<string> {
  const { page, pack, site } = ctx;
  const world = pageWorld(page);
  // What was in the way is cleared (or ends the attempt), and the answer looked at again.
  const look: AnswerLook = first.inTheWay
    ? await clearObstacles(ctx, first.inTheWay).then(() => world.run((h, [json, s]) => h.answerLook(h.pack(json), s), [pack, site.turnScope] as const))
    : first;
  if (look.nonText) throw new AgentFailure('not_text', `${site.name} answered with ${look.nonText}, not text; ChatBridge hands back text answers only.`);
  let text = await readWith(ctx, look.copy);
  if (text.trim() === '') text = await readAgainLoaded(ctx);
  if (text.trim() === '') throw siteChanged(site, 'answer', 'the answer read empty');
  return text;
}

/**
 * The answer as the provider's own Markdown, through its copy control with the page's
 * clipboard intercepted; the DOM converted to Markdown when copying gives nothing. `lastTurn`:
 * the last turn's, not the new one's.
 */
export async function readAnswer(ctx: FlowContext, lastTurn = false): Promise<string> {
  const { page, pack, site } = ctx;
  return readWith(ctx, await pageWorld(page).run((h, [json, s, l]) => h.copyLook(h.pack(json), s, l), [pack, site.turnScope, lastTurn] as const));
}

/** The answer of the turn `look` found, pressing its Copy where the look found it free to press. */
async function readWith(ctx: FlowContext, { last, point, armed }: CopyLook): Promise<string> {
  const { page, pack } = ctx;
  const scope = ctx.site.turnScope;
  const world = pageWorld(page);
  if (point) {
    // In view with nothing over it: pressed where it is, as Send is (page-helpers/path.ts).
    const copied = await copiedBy(ctx, () => world.press(point), COPY_WAIT_MS, armed);
    if (copied) return copied;
  } else {
    const findCopy = () => world.element((h, [json, s, l]) => h.inTurn(h.pack(json), 'copy', s, l), [pack, scope, last] as const);
    let copy = await findCopy();
    if (!copy) {
      // Some sites show a turn's actions only while it is hovered.
      const turn = await world.element(
        (h, [json, l]) => {
          const p = h.pack(json);
          return l ? (h.turns(p).at(-1) ?? null) : h.newTurn(p);
        },
        [pack, last] as const,
      );
      await turn?.hover({ timeout: 1_000 }).catch(() => {});
      await turn?.dispose();
      copy = await findCopy();
    }
    if (copy) {
      const button = copy;
      // A real (trusted) click, without waiting for the button to settle: it is there, and
      // clearObstacles has made sure nothing covers the page.
      const copied = await copiedBy(ctx, () => button.click({ force: true, timeout: CLICK_MS }), CLICK_MS + COPY_WAIT_MS);
      await copy.dispose();
      if (copied) return copied;
    }
  }
  // A code block's own Copy, clicked in the conversion, is read through the hook too (markdown.ts).
  return world.withCopyHook(() =>
    world.run(
      (h, [json, l]) => {
        const p = h.pack(json);
        const turn = l ? (h.turns(p).at(-1) ?? null) : h.newTurn(p);
        return turn ? h.answerMarkdown(p, turn) : '';
      },
      [pack, last] as const,
    ),
  );
}

/**
 * What the page puts on the clipboard when `click` presses a Copy, caught by the copy hook
 * (`armed`: set already, by the look that found the Copy); null if nothing within `ms` (the
 * click's own time, and COPY_WAIT_MS after it). The wait for it is in the page before the
 * press, and ends as the copy comes.
 */
function copiedBy(ctx: FlowContext, click: () => Promise<void>, ms: number, armed = false): Promise<string | null> {
  const world = pageWorld(ctx.page);
  return world.withCopyHook(async () => {
    const copied = world.run((h, within) => h.copied(within), ms).catch(() => null);
    await click().catch(() => {});
    return inPage(ctx, copied);
  }, armed);
}

/**
 * A finished answer that reads empty, read again from its conversation loaded anew: Qwen can
 * hydrate a reopened chat's answer into an empty wrapper (research 2026-11-26), and the page
 * loaded again shows it. Only once the page has the conversation's own address (a new chat's
 * would load empty); the last turn, as nothing on the new page is marked.
 */
async function readAgainLoaded(ctx: FlowContext): Promise<string> {
  const { page, site } = ctx;
  await inPage(ctx, page.waitForURL((url) => site.conversationPath.test(url.pathname), { timeout: ADDRESS_WAIT_MS }).catch(() => {}));
  if (!site.conversationPath.test(new URL(page.url()).pathname)) return '';
  await inPage(ctx, page.reload({ waitUntil: 'domcontentloaded' }));
  await inPage(
    ctx,
    pageWorld(page)
      .waitFor((h, json) => h.turns(h.pack(json)).length > 0, ctx.pack, { timeout: ADDRESS_WAIT_MS })
      .catch(() => {}),
  );
  return readAnswer(ctx, true);
}
