/** What a pack's cue still finds after a release renamed its test ids and hashed its classes and ids at once. */
import type { Cue } from '../../agents/providers/cues.js';

/** Attributes a release renames with its test ids, or rewrites with its class and id hashes (simulator/client/drift.ts). */
const RENAMED = /\[\s*(?:\*\|)?(?:class|id|data-testid|data-test-id|data-test|data-qa|data-cy|for|aria-labelledby|aria-controls)\s*[~|^$*]?[=\]]/i;

/** Whether a cue finds its element with test ids renamed and classes and ids hashed together. */
export function survivesRenames(cue: Cue): boolean {
  // An in-page reference (`use[href="#icon-copy"]`) names an id.
  if (/\[\s*(?:\*\|)?(?:xlink:)?href\s*[~|^$*]?=\s*["']?#/.test(cue.css)) return false;
  const bare = cue.css.replace(/"[^"]*"|'[^']*'/g, '""');
  return !/[.#][A-Za-z_\\-]/.test(bare) && !RENAMED.test(bare);
}
