/**
 * The skins' own lookups on a drifted page. A site rebuilt with new class names and test
 * ids has its own code rebuilt with them: a Copy button still finds the code block it
 * copies. The drift carries `classList` calls over by itself (drift.ts); a skin that looks
 * an element up by a selector once the page has drifted (in a click handler) passes the
 * selector through `simSelector`. Only the page's own code does: ChatBridge's lookups run
 * in the same page and must see the drift as it is.
 */
import { renameInSelector, type SelectorRenames } from './drift-names.js';

let renames: SelectorRenames | null = null;

/** Called by the drift with the renames in force on this page. */
export function followDrift(next: SelectorRenames): void {
  renames = next;
}

/** `selector` with the page's drifted names, as the rebuilt site's own code would write it. */
export function simSelector(selector: string): string {
  return renames ? renameInSelector(selector, renames) : selector;
}
