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

/**
 * A regular expression as the page helpers take it: [source, flags], and for a user's pattern
 * the most characters of a text it reads (user-patterns.ts).
 */
export type PagePattern = readonly [source: string, flags: string] | readonly [source: string, flags: string, limit: number];

/** A cue as the page helpers take it. */
export interface PageCue {
  kind: CueKind;
  css: string;
  text?: PagePattern;
  name?: PagePattern;
}
