/**
 * Choosing a variant in the page before the prompt is typed, and refusing when it cannot be
 * chosen for sure (decisions.md, "Models and modes within a provider"): each step of the
 * variant (an entry of the model picker, a mode toggle) is found by its words, chosen unless
 * it is in force already, and then checked in force as the page shows it. A variant the page
 * does not offer, words that no longer match, or a choice the page does not show taken end
 * the attempt with VariantUnavailable, naming the variants the page did offer; nothing was
 * typed. Without a variant nothing here runs: the picker stays as it stands.
 *
 * Also here: which variants the page offers now (the site check), and the model the page
 * names after an answer (a job's `model_used`).
 */
import { VariantUnavailable } from '../../main/core/agent.js';
import { inPage, waitUntil, type FlowContext } from './flow-context.js';
import { pageWorld } from './page-world.js';
import { modelReading, type SiteVariant, type SiteVariants, type VariantStep } from './variant-pack.js';
import type { PageCue } from './cues.js';

/** A menu the picker opens shows its entries within this. */
const MENU_MS = 3_000;
/** A choice shows in the page within this, or it did not take. */
const TAKE_MS = 2_000;
const POLL_MS = 50;

/** A control the page offers for choosing: its words, whether it is the one in force, whether the account may use it. */
interface Choice {
  label: string;
  selected: boolean;
  disabled: boolean;
}

/** What the page shows now: the open menu's entries (none while it is closed) and the toggles. */
interface Choices {
  options: Choice[];
  toggles: Choice[];
}

/**
 * Selects `variantId` and verifies it, or throws VariantUnavailable; does nothing for null.
 * The picker and the toggles must show, and the picker's menu open, within the limits'
 * `controlsMs`; the job's signal ends the waits early (a cancelled job does not keep its agent).
 */
export async function chooseVariant(ctx: FlowContext, variantId: string | null): Promise<void> {
  if (variantId === null) return;
  const { site } = ctx;
  const variants = site.variants;
  const variant = variants.list.find((v) => v.id === variantId);
  if (!variant) {
    throw new VariantUnavailable(variantId, [], `${site.name}'s pack lists no variant "${variantId}"; it lists ${listOf(variants.list.map((v) => v.id))}.`);
  }
  const started = ctx.pageTime.now();
  for (const step of variant.steps) await takeStep(ctx, variant, step);
  ctx.notes({ level: 'info', message: `chose ${site.name}'s ${variant.label} ("${variant.id}") in ${ctx.pageTime.now() - started} ms.` });
}

/**
 * The ids of the pack's variants the page offers now: the picker opened and closed again, the
 * toggles read. Null when the picker's menu did not open within the limits' `controlsMs`: what
 * the account offers is not known.
 */
export async function offeredVariants(ctx: FlowContext): Promise<string[] | null> {
  const variants = ctx.site.variants;
  if (variants.list.length === 0) return [];
  const needsToggles = variants.list.some((v) => v.steps.some((s) => s.how === 'toggle'));
  if (needsToggles && !(await togglesShow(ctx, variants))) return null;
  const needsMenu = variants.list.some((v) => v.steps.some((s) => s.how !== 'toggle'));
  const opened = needsMenu && (await openPicker(ctx, variants));
  if (needsMenu && !opened) return null;
  try {
    return offeredIn(variants, await readChoices(ctx, variants));
  } finally {
    if (opened) await closeMenu(ctx, variants);
  }
}

/**
 * The model the page names after the answer, read on its own (a finished turn's watch reads
 * it as the answer ends: page-helpers/watch.ts), or null where it names none.
 */
export async function modelUsedOf({ page, site, pack }: FlowContext): Promise<string | null> {
  const reading = modelReading(site.variants);
  if (!reading) return null;
  return pageWorld(page)
    .run((h, [json, scope, r]) => h.modelUsed(h.pack(json), scope, r), [pack, site.turnScope, reading] as const)
    .catch(() => null);
}

async function takeStep(ctx: FlowContext, variant: SiteVariant, step: VariantStep): Promise<void> {
  const { site } = ctx;
  const variants = site.variants;
  const inMenu = step.how !== 'toggle';
  const refuse = async (why: string, choices: Choices): Promise<never> => {
    if (inMenu) await closeMenu(ctx, variants);
    const seen = [...choices.options, ...choices.toggles].map((c) => `"${c.label}"`);
    throw new VariantUnavailable(
      variant.id,
      offeredIn(variants, choices),
      `${site.name}: ${variant.label} ("${variant.id}") ${why}; nothing was sent. The page offered ${seen.length ? seen.join(', ') : 'no choices'}.`,
    );
  };
  // A picker that does not open, or toggles that do not show, say nothing of what the account
  // offers: controls still loading, or ones the pack no longer finds.
  if (inMenu && !(await openPicker(ctx, variants))) {
    const why = variants.picker.length ? 'no model picker opens on the page' : 'the pack names no model picker';
    throw new VariantUnavailable(variant.id, null, `${site.name}: ${variant.label} ("${variant.id}") cannot be chosen: ${why}; nothing was sent.`);
  }
  if (!inMenu && !(await togglesShow(ctx, variants))) {
    throw new VariantUnavailable(variant.id, null, `${site.name}: ${variant.label} ("${variant.id}") cannot be chosen: no mode toggles show on the page; nothing was sent.`);
  }
  const before = await readChoices(ctx, variants);
  const controls = step.how === 'option' ? before.options : before.toggles;
  const index = controls.findIndex((c) => startsWith(c.label, step.words));
  const found = controls[index];
  if (!found) return refuse('is not offered (or its words changed)', before);
  if (found.disabled) return refuse('is offered but not to this account', before);
  // An entry without a selected state is in force when the picker's label names it (Gemini's "Pro").
  const inForce = found.selected || (step.how === 'option' && (await pickerSays(ctx, variants.picker, step.words)));
  if (!inForce) {
    await clickChoice(ctx, step.how === 'option' ? variants.option! : variants.toggle!, index);
    if (!(await takes(ctx, variants, step))) {
      // What the page offers is read in its menu, which the pick may have closed (a slow page
      // may not have opened it again by the time the choice was given up on).
      await openPicker(ctx, variants);
      const offered = await readChoices(ctx, variants);
      await closeMenu(ctx, variants);
      return refuse('was chosen, but the page does not show it in force', offered);
    }
  }
  if (inMenu) await closeMenu(ctx, variants);
}

/**
 * Whether the choice shows in force within TAKE_MS: the entry or toggle marked selected, or,
 * once the menu has closed on a picked entry, the picker's own label naming it (else the
 * menu is opened again to look).
 */
async function takes(ctx: FlowContext, variants: SiteVariants, step: VariantStep): Promise<boolean> {
  const css = step.how === 'option' ? variants.option! : variants.toggle!;
  const seen = await waitUntil(
    ctx,
    async () => {
      const entry = (await readList(ctx, css, variants.selected)).find((c) => startsWith(c.label, step.words));
      if (entry?.selected) return 'taken';
      if (!entry && step.how !== 'toggle') {
        // The menu closed on the choice: the picker's label may say it; else look in the menu again.
        if (step.how === 'option' && (await pickerSays(ctx, variants.picker, step.words))) return 'taken';
        if (!(await openPicker(ctx, variants))) return 'no menu';
      }
      return null;
    },
    { within: TAKE_MS, every: POLL_MS * 4 },
  );
  return seen === 'taken';
}

/**
 * Opens the model picker unless its menu shows already; false when there is no picker or no menu
 * opens within the limits' `controlsMs`. The picker is clicked again while its menu does not open: a picker
 * the page shows before its script listens ignores a click (the server's markup before
 * hydration; ChatGPT's picker hydrates up to ~45 s after the textbox, research 2026-11-26), and
 * so may one on a page too busy to take the click in time.
 */
async function openPicker(ctx: FlowContext, variants: SiteVariants): Promise<boolean> {
  if (!variants.option) return false;
  const menuOpen = async () => (await readList(ctx, variants.option!, variants.selected)).length > 0;
  if (await menuOpen()) return true;
  const seen = await waitUntil(
    ctx,
    async (left) => {
      const world = pageWorld(ctx.page);
      const shows = await inPage(
        ctx,
        world.waitFor((h, cues: readonly PageCue[]) => !!h.find(cues), variants.picker, { timeout: Math.max(left, 1), polling: POLL_MS * 4 }).catch(() => null),
      );
      const picker = shows ? await world.element((h, cues: readonly PageCue[]) => h.find(cues), variants.picker) : null;
      if (!picker) return null;
      await picker.click({ timeout: 2_000 }).catch(() => {});
      const opened = (await waitUntil(ctx, menuOpen, { within: MENU_MS, every: POLL_MS })) ?? false;
      // A picker that says its menu is open took the click: the menu's entries are not ones the
      // pack knows, and another click would only close it.
      const taken = opened || (await picker.getAttribute('aria-expanded').catch(() => null)) === 'true';
      await picker.dispose();
      return taken ? { opened } : null;
    },
    // The picker is looked for at once again: the look itself waits in the page.
    { within: ctx.limits.controlsMs, every: 0 },
  );
  return seen?.opened ?? false;
}

/** Whether the page shows its mode toggles within the limits' `controlsMs`: none shown says nothing of what the account offers. */
async function togglesShow(ctx: FlowContext, variants: SiteVariants): Promise<boolean> {
  const toggles = variants.toggle;
  if (!toggles) return false;
  const shown = await waitUntil(ctx, async () => (await readList(ctx, toggles, variants.selected)).length > 0, { within: ctx.limits.controlsMs, every: POLL_MS });
  return shown ?? false;
}

async function closeMenu(ctx: FlowContext, variants: SiteVariants): Promise<void> {
  if (!variants.option || (await readList(ctx, variants.option, variants.selected)).length === 0) return;
  await ctx.page.keyboard.press('Escape').catch(() => {});
  await waitUntil(ctx, async () => (await readList(ctx, variants.option!, variants.selected)).length === 0, { within: 1_000, every: POLL_MS });
}

async function readChoices(ctx: FlowContext, variants: SiteVariants): Promise<Choices> {
  return {
    options: variants.option ? await readList(ctx, variants.option, variants.selected) : [],
    toggles: variants.toggle ? await readList(ctx, variants.toggle, variants.selected) : [],
  };
}

/** The visible controls `css` finds, in page order. */
function readList({ page }: FlowContext, css: string, selected: string): Promise<Choice[]> {
  return pageWorld(page)
    .run(
      (h, [css, selected]): Choice[] => {
        let all: Element[];
        try {
          all = Array.from(document.querySelectorAll(css)).filter((el) => h.visible(el));
        } catch {
          return []; // a selector this browser cannot parse (a user's override) finds nothing
        }
        const matches = (el: Element, sel: string) => {
          try {
            return el.matches(sel);
          } catch {
            return false;
          }
        };
        return all.map((el) => ({
          // As read on screen: an entry's name and its description are separate lines ("Pro" / "Research-grade…"), which textContent would run together.
          label: (el.getAttribute('aria-label') || (el as HTMLElement).innerText || h.accessibleName(el)).replace(/\s+/g, ' ').trim().slice(0, 120),
          selected: matches(el, selected),
          disabled: matches(el, '[aria-disabled="true"], [disabled], [data-disabled]:not([data-disabled="false"])'),
        }));
      },
      [css, selected] as const,
    )
    .catch(() => []);
}

async function clickChoice({ page }: FlowContext, css: string, index: number): Promise<void> {
  const choice = await pageWorld(page).element((h, [css, index]) => Array.from(document.querySelectorAll(css)).filter((el) => h.visible(el))[index] ?? null, [css, index] as const);
  await choice?.click({ timeout: 2_000 }).catch(() => {});
  await choice?.dispose();
}

/** Whether the picker's own label names the words (Claude's "Model: Opus 4.5", Gemini's "Fast"). */
async function pickerSays({ page }: FlowContext, picker: readonly PageCue[], words: string): Promise<boolean> {
  const label = await pageWorld(page).run((h, cues: readonly PageCue[]) => {
    const el = h.find(cues);
    return el ? `${h.accessibleName(el)} ${el.textContent ?? ''}` : '';
  }, picker);
  return new RegExp(`(?<!\\p{L})(?:${words})(?!\\p{L})`, 'iu').test(label);
}

/** The variants every step of which the page shows, usable by this account. */
function offeredIn(variants: SiteVariants, choices: Choices): string[] {
  return variants.list
    .filter((v) => v.steps.every((s) => (s.how === 'option' ? choices.options : choices.toggles).some((c) => !c.disabled && startsWith(c.label, s.words))))
    .map((v) => v.id);
}

/** A label starts with one of the words, as a whole word ("Pro" is not "Projects"; "Instant5.5" is "Instant"). */
function startsWith(label: string, words: string): boolean {
  return new RegExp(`^\\s*(?:${words})(?!\\p{L})`, 'iu').test(label);
}

function listOf(ids: string[]): string {
  return ids.length ? ids.join(', ') : 'none';
}

