/**
 * Which kind of evidence a cue relies on. A site redesign usually breaks one kind at a time
 * (test ids renamed, classes re-hashed, labels reworded), so each acting role keeps cues
 * of several kinds.
 */
export const CUE_KINDS = ['testid', 'aria', 'structure', 'class', 'text'] as const;
export type CueKind = (typeof CUE_KINDS)[number];

/** One way to find a role's element, as written in a pack. */
export interface Cue {
  kind: CueKind;
  /** A CSS selector; the element must be visible. */
  css: string;
  /** `/regex/flags` the element's text must match. */
  text?: string;
  /** `/regex/flags` or `@word` (ui-words.ts) the element's accessible name must match. */
  name?: string;
  /** Where the cue comes from, or why it is written so. */
  note?: string;
}

/** A cue as the page helpers take it: regular expressions as [source, flags]. */
export interface PageCue {
  kind: CueKind;
  css: string;
  text?: readonly [string, string];
  name?: readonly [string, string];
}
