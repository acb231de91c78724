/**
 * A user's patterns (a site pack override's cues, addresses and variant words) where they
 * run: pattern-safety.ts refuses at load every one that could take more than linear time at
 * a place of the text, and each is held against at most USER_TEXT_LIMIT characters, which
 * bounds what is left, the engine's trying place after place, to USER_TEXT_LIMIT² steps
 * (milliseconds) however long a page's text is.
 */

/** The most characters of a text (an element's text or name, a page's address) a user's pattern reads. */
export const USER_TEXT_LIMIT = 2_000;

/** What the flow asks of a pattern: a RegExp, or a user's, bounded. */
export interface Matcher {
  test(text: string): boolean;
}

/** A user's pattern (already checked) that reads at most USER_TEXT_LIMIT characters of a text. */
export function boundedPattern(source: string, flags = ''): Matcher {
  const re = new RegExp(source, flags);
  return { test: (text) => re.test(text.slice(0, USER_TEXT_LIMIT)) };
}
