/**
 * In the page: the caller's files in the composer (attach-files.ts drives them). The hidden
 * file input by the pack's cues (it is never visible, so found without the visibility rule);
 * the chips and refusal notices that came since `markAttachments`, described for the flow,
 * which matches them to the files; the chips it matched, remembered as the caller's, so that
 * a paste card (the `attachment` role: a prompt the composer made a file) is never one of them.
 */
import type { AttachmentsSeen, ChipSeen, Helpers } from './types.js';

export function addAttachments(h: Helpers): void {
  /** What was on the page before the files went in: older chips, and the notices with their words then. */
  let before: { chips: Set<Element>; notices: Map<Element, string> } = { chips: new Set(), notices: new Map() };
  /** The new chips of the last look, in the order they were described. */
  let lastChips: Element[] = [];
  /** The chips matched to the caller's files. */
  let own: Element[] = [];

  /** The first file input a `fileInput` cue finds, and which cue. */
  const fileInputs = (pack: Parameters<Helpers['fileInput']>[0]): { input: Element; cue: number } | null => {
    const cues = pack.fileInput ?? [];
    for (let i = 0; i < cues.length; i++) {
      const cue = cues[i]!;
      let all: Element[];
      try {
        all = Array.from(document.querySelectorAll(cue.css));
      } catch {
        continue;
      }
      const name = h.regex(cue.name);
      const input = all.find((el) => el instanceof HTMLInputElement && el.type === 'file' && !el.disabled && (!name || name.test(h.accessibleName(el))));
      if (input) return { input, cue: i };
    }
    return null;
  };
  h.fileInput = (pack) => fileInputs(pack)?.input ?? null;
  h.fileInputCue = (pack) => fileInputs(pack)?.cue ?? -1;

  /** The chips now: every one the first chip cue that finds any finds. */
  const chips = (pack: Parameters<Helpers['fileInput']>[0]): Element[] => {
    for (const cue of pack.attachChip ?? []) {
      const found = h.findAll(cue, document);
      if (found.length > 0) return found.filter((el) => !found.some((other) => other !== el && other.contains(el)));
    }
    return [];
  };

  /** The refusal notices now that have words, each once. */
  const notices = (pack: Parameters<Helpers['fileInput']>[0]): Element[] => {
    const found = new Set<Element>();
    for (const cue of pack.attachRefusal ?? []) for (const el of h.findAll(cue, document)) if (h.textOf(el) !== '') found.add(el);
    return [...found].filter((el) => ![...found].some((other) => other !== el && other.contains(el)));
  };

  const busy = (pack: Parameters<Helpers['fileInput']>[0], chip: Element): boolean =>
    (pack.attachBusy ?? []).some((cue) => {
      try {
        if (chip.matches(cue.css)) return true;
      } catch {
        return false;
      }
      return h.find([cue], chip) !== null;
    });

  h.markAttachments = (pack) => {
    before = { chips: new Set(chips(pack)), notices: new Map(notices(pack).map((el) => [el, h.textOf(el)])) };
    lastChips = [];
    own = [];
  };

  h.attachmentsSeen = (pack) => {
    lastChips = chips(pack).filter((el) => !before.chips.has(el));
    const described = lastChips.map(
      (el): ChipSeen => ({
        title: el.getAttribute('title') ?? '',
        label: el.getAttribute('aria-label') ?? '',
        text: h.textOf(el),
        busy: busy(pack, el),
      }),
    );
    const refusals = notices(pack)
      .filter((el) => before.notices.get(el) !== h.textOf(el))
      .map((el) => h.textOf(el));
    const ownLeft = own.filter((el) => el.isConnected).length;
    return { chips: described, refusals, ownLeft } satisfies AttachmentsSeen;
  };

  h.claimChips = (indices) => {
    own = indices.map((i) => lastChips[i]).filter((el): el is Element => el !== undefined);
    return own.length;
  };

  h.pasteCard = (pack) => h.find(pack.attachment, document, (el) => !own.some((chip) => chip === el || chip.contains(el) || el.contains(chip)));

  h.sendState = (pack) => {
    const button = h.find(pack.send) as HTMLButtonElement | null;
    if (!button) return 'none';
    return button.disabled || button.getAttribute('aria-disabled') === 'true' ? 'disabled' : 'enabled';
  };
}
