/**
 * The ways a simulated site can drift from the markup its selector pack was written
 * against, one kind of cue at a time (`serve --simulate --simulate-drift KIND`). Each kind
 * alone must leave every provider answering correctly: the packs find every role by more
 * than one kind of cue. The page applies them (drift.ts); the server only passes them on.
 */
export const DRIFT_KINDS = [
  /** Every data-testid renamed. */
  'testids',
  /** Every class name and id replaced by a build hash. */
  'classes',
  /** Accessible names and button texts in another UI language. */
  'labels',
  /** Extra wrapper elements around controls and turn contents. */
  'wrappers',
  /** A "what's new" modal dialog over the page. */
  'dialog',
  /** No copy controls: the answer must be read from the page. */
  'no-copy',
  /** Old turns unmounted as new ones arrive (a virtualized transcript). */
  'unmount',
  /** The answer's finished signal and its actions known to no cue: flags set at the end taken off, the action bar unnamed (drift-finish.ts). */
  'no-finish',
] as const;

export type DriftKind = (typeof DRIFT_KINDS)[number];

export function isDriftKind(text: string): text is DriftKind {
  return (DRIFT_KINDS as readonly string[]).includes(text);
}
