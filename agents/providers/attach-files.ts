/**
 * A job's files put through the page's own file control, and seen attached before a word is
 * typed (decisions.md, "Attachments"): the hidden input set with the files' paths (Playwright
 * hands the browser the paths: the data never goes through a page script), or on a site
 * whose input exists only once its upload menu is used (Gemini), the menu clicked and the
 * browser's file chooser answered. Then each file must show as a chip named by it, its upload
 * finished, within the upload wait (FlowLimits.uploadMs, 60 s); a refusal notice meanwhile, or
 * a file not shown by then, fails the attempt `attachment_failed` with nothing sent. Once
 * the prompt is typed, the send control must be enabled with the chips still there
 * (`readyToSend`) before it is pressed.
 */
import type { ElementHandle } from 'playwright-core';
import { AgentFailure } from '../../main/core/agent.js';
import type { AttachmentFile } from '../../main/core/attachments.js';
import { inPage, waitUntil, type FlowContext } from './flow-context.js';
import type { AttachmentsSeen, ChipSeen } from './page-helpers/types.js';
import { pageWorld } from './page-world.js';

/** How often the page is looked at while files upload. */
const LOOK_EVERY_MS = 150;
/** Gemini's menu: its item must show, and the browser's chooser open, within these once clicked; the item looked for this often. */
const MENU_MS = 5_000;
const CHOOSER_MS = 10_000;
const MENU_LOOK_MS = 50;
/** A send control no cue finds at all (rather than found disabled) is left to the send's own fallback after this. */
const NO_SEND_MS = 3_000;

/** Files seen attached: what `readyToSend` checks again once the prompt is typed. */
export interface Attached {
  names: readonly string[];
  /** On the page's time (FlowContext.pageTime): when the upload wait ends. */
  deadline: number;
}

/**
 * Puts `files` in and waits until the page shows each attached, its upload done; throws
 * `attachment_failed` (or the signal's reason on a cancel) otherwise. Null for no files.
 */
export async function attachFiles(ctx: FlowContext, files: readonly AttachmentFile[]): Promise<Attached | null> {
  if (files.length === 0) return null;
  const { page, site, pack } = ctx;
  const names = files.map((f) => f.filename);
  if (!site.attachments) throw new AgentFailure('attachment_failed', `${site.name}'s selector pack says nothing of files: none was attached, nothing was sent.`);
  const deadline = ctx.pageTime.now() + ctx.limits.uploadMs;
  const world = pageWorld(page);
  await world.run((h, json) => h.markAttachments(h.pack(json)), pack);
  const paths = files.map((f) => f.path);
  if (site.attachments.via === 'chooser') await throughChooser(ctx, paths);
  else await throughInput(ctx, paths);

  let last: AttachmentsSeen | null = null;
  const matched = await waitUntil(
    ctx,
    async () => {
      last = await world.run((h, json) => h.attachmentsSeen(h.pack(json)), pack);
      const refused = last.refusals[0];
      if (refused !== undefined) throw refusal(ctx, names, refused);
      const found = matchChips(names, last.chips);
      return found.every((i) => i >= 0 && !last!.chips[i]!.busy) ? found : null;
    },
    { within: Math.max(deadline - ctx.pageTime.now(), 0), every: LOOK_EVERY_MS },
  );
  if (!matched) throw notShown(ctx, names, last);
  await world.run((h, indices) => h.claimChips(indices), matched);
  ctx.notes({ level: 'info', message: `${site.name} shows ${files.length} file${files.length === 1 ? '' : 's'} attached.` });
  return { names, deadline };
}

/**
 * Once the prompt is typed: waits (to the end of the upload wait, at least a few seconds)
 * until the send control is enabled, the chips still in the composer and no refusal come.
 */
export async function readyToSend(ctx: FlowContext, attached: Attached): Promise<void> {
  const { page, site, pack } = ctx;
  const world = pageWorld(page);
  const started = ctx.pageTime.now();
  let state: 'enabled' | 'disabled' | 'none' = 'none';
  const ready = await waitUntil(
    ctx,
    async () => {
      const seen = await world.run((h, json) => h.attachmentsSeen(h.pack(json)), pack);
      const refused = seen.refusals[0];
      if (refused !== undefined) throw refusal(ctx, attached.names, refused);
      if (seen.ownLeft < attached.names.length) {
        throw new AgentFailure('attachment_failed', `${site.name} no longer shows every file attached once the prompt was typed (${seen.ownLeft} of ${attached.names.length}); nothing was sent.`);
      }
      state = await world.run((h, json) => h.sendState(h.pack(json)), pack);
      // No cue finds the send control at all: the send's own fallback (Enter) says what it finds.
      return state === 'enabled' || (state === 'none' && ctx.pageTime.now() - started >= NO_SEND_MS);
    },
    { within: Math.max(attached.deadline - ctx.pageTime.now(), NO_SEND_MS), every: LOOK_EVERY_MS },
  );
  if (!ready) {
    throw new AgentFailure(
      'attachment_failed',
      `${site.name} kept its send control disabled with ${listOf(attached.names)} attached for ${ctx.limits.uploadMs / 1000} s (an upload still running?); nothing was sent.`,
    );
  }
}

/** The page's own input set with the files' paths: CDP DOM.setFileInputFiles fires its change as a person's choice would. */
async function throughInput(ctx: FlowContext, paths: string[]): Promise<void> {
  const { page, site, pack } = ctx;
  const input = await pageWorld(page).element((h, json) => h.fileInput(h.pack(json)), pack);
  if (!input) {
    throw new AgentFailure(
      'attachment_failed',
      `${site.name} shows no file input on this page (a mode without uploads, as DeepSeek's Expert is, or a changed site: no cue of its pack finds one); nothing was sent.`,
    );
  }
  await inPage(ctx, input.setInputFiles(paths)).finally(() => input.dispose());
}

/**
 * The upload menu opened, its local-files item clicked, and the browser's file chooser given
 * the paths. A press of the opener that the menu did not follow (a click a loaded machine ran
 * out of time for) is made once more: the opener only opens a menu, so pressing it again sends
 * nothing.
 */
async function throughChooser(ctx: FlowContext, paths: string[]): Promise<void> {
  const { page, site, pack } = ctx;
  const world = pageWorld(page);
  const findOpener = () => world.element((h, json) => h.find(h.pack(json).attachOpener), pack);
  const opener = await findOpener();
  if (!opener) throw new AgentFailure('attachment_failed', `${site.name} shows no upload menu on this page (no cue of its pack finds its opener); nothing was sent.`);
  await clickAndDispose(opener);
  // Looked for on a timer: a page the browser keeps in the background runs no animation frames.
  const menuItem = () =>
    inPage(
      ctx,
      world
        .waitFor((h, json) => !!h.find(h.pack(json).attachMenuItem), pack, { timeout: MENU_MS, polling: MENU_LOOK_MS })
        .then(() => world.element((h, json) => h.find(h.pack(json).attachMenuItem), pack)),
    );
  let item = await menuItem();
  const again = item ? null : await findOpener();
  if (again) {
    await clickAndDispose(again);
    item = await menuItem();
  }
  if (!item) throw new AgentFailure('attachment_failed', `${site.name}'s upload menu did not show its item for files from this computer; nothing was sent.`);
  const chooser = page.waitForEvent('filechooser', { timeout: CHOOSER_MS });
  chooser.catch(() => {});
  await clickAndDispose(item);
  const opened = await inPage(ctx, chooser.catch(() => null));
  if (!opened) {
    // A first upload on a profile can show a rights notice instead (research 2026-11-28,
    // Gemini): a person's to agree to, never clicked through here.
    const dialog = await world.run(() => document.querySelector('[role="dialog"], [role="alertdialog"], mat-dialog-container')?.textContent?.replace(/\s+/g, ' ').trim().slice(0, 160) ?? null, undefined);
    throw new AgentFailure(
      'attachment_failed',
      `${site.name}'s upload menu did not open a file chooser${dialog ? ` (it shows a dialog: "${dialog}"; a person may need to answer it in the agent's window)` : ''}; nothing was sent.`,
    );
  }
  await inPage(ctx, opened.setFiles(paths));
}

async function clickAndDispose(control: ElementHandle<Element>): Promise<void> {
  await control.click({ timeout: 2_000 }).catch(() => {});
  await control.dispose();
}

/**
 * Which chip shows each file, by index (-1: none), each chip taken once: first by its whole
 * name (a chip's title or label), then by its words, where a long name may be cut with an
 * ellipsis. A site that renames a second file of the same name ("notes(1).md") is matched too.
 */
export function matchChips(names: readonly string[], chips: readonly ChipSeen[]): number[] {
  const taken = new Set<number>();
  const found = names.map(() => -1);
  for (const shows of [namedBy, worded]) {
    names.forEach((name, n) => {
      if (found[n]! >= 0) return;
      const i = chips.findIndex((chip, c) => !taken.has(c) && shows(chip, name));
      if (i >= 0) {
        found[n] = i;
        taken.add(i);
      }
    });
  }
  return found;
}

/** "notes(1).md", "notes (2).md" → "notes.md". */
function unnumbered(name: string): string {
  return name.replace(/\s?\(\d+\)(?=(?:\.[^.]*)?$)/, '');
}

function namedBy(chip: ChipSeen, name: string): boolean {
  return [chip.title, chip.label].some((whole) => {
    const w = whole.trim();
    return w !== '' && (w === name || unnumbered(w) === name);
  });
}

function worded(chip: ChipSeen, name: string): boolean {
  const text = chip.text.replace(/\s+/g, ' ');
  if (text.includes(name) || unnumbered(text).includes(name)) return true;
  return cutShows(text, name.replace(/\s+/g, ' '));
}

/** Whether `text` shows `name` cut with an ellipsis ("a-very-long-na…e.txt"): the words on each side are its start and its end. */
export function cutShows(text: string, name: string): boolean {
  const cut = /…|\.{3}/.exec(text);
  if (!cut) return false;
  const head = text.slice(0, cut.index);
  const tail = text.slice(cut.index + cut[0].length);
  let start = 0;
  for (let k = Math.min(head.length, name.length); k > 0; k--) {
    if (name.startsWith(head.slice(head.length - k))) {
      start = k;
      break;
    }
  }
  let end = 0;
  for (let k = Math.min(tail.length, name.length - start); k > 0; k--) {
    if (name.endsWith(tail.slice(0, k))) {
      end = k;
      break;
    }
  }
  // Something was cut, and what shows is enough of the name to tell it.
  return start + end < name.length && start + end >= Math.min(6, name.length - 1) && start > 0;
}

/** A refusal the page showed: the file it names (the longest name it contains), or the files, and its words. */
function refusal({ site }: FlowContext, names: readonly string[], words: string): AgentFailure {
  const named = [...names].sort((a, b) => b.length - a.length).find((name) => words.includes(name));
  return new AgentFailure('attachment_failed', `${site.name} refused ${named ?? listOf(names)}: "${words}"; nothing was sent.`);
}

/** The upload wait ran out: which files never showed, or still uploaded. */
function notShown({ site, limits }: FlowContext, names: readonly string[], last: AttachmentsSeen | null): AgentFailure {
  const found = last ? matchChips(names, last.chips) : names.map(() => -1);
  const missing = names.filter((_, n) => found[n]! < 0);
  const uploading = names.filter((_, n) => found[n]! >= 0 && last!.chips[found[n]!]!.busy);
  const parts = [
    missing.length > 0 ? `did not show ${listOf(missing)} attached` : null,
    uploading.length > 0 ? `was still uploading ${listOf(uploading)}` : null,
  ].filter((p) => p !== null);
  return new AgentFailure('attachment_failed', `${site.name} ${parts.join(' and ')} after ${limits.uploadMs / 1000} s; nothing was sent.`);
}

function listOf(names: readonly string[]): string {
  const quoted = names.map((n) => `"${n}"`);
  return quoted.length <= 1 ? (quoted[0] ?? 'the files') : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
}
