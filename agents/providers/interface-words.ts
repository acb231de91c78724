/**
 * The site's own interface words: what a diagnostic bundle may leave readable (page-helpers/
 * scrub.ts). The words UIs put on their controls (ui-words.ts), and the words of the site's
 * pack: its name, its cues' selectors and the texts and names they look for. A text of the
 * page stays readable only when every word of it is one of these.
 */
import type { ProviderSite } from './site.js';
import { UI_WORDS } from './ui-words.js';

const WORD = /[\p{L}\p{N}]+/gu;

/** The words of a regular expression's source or a selector, its escapes (\s, \p{L}) left out. */
function wordsOf(source: string): string[] {
  return source.replace(/\\p\{[^}]*\}|\\[a-zA-Z]/g, ' ').toLowerCase().match(WORD) ?? [];
}

export function interfaceWords(site: ProviderSite): string[] {
  const words = new Set<string>(wordsOf(site.name));
  for (const source of Object.values(UI_WORDS).flat()) for (const w of wordsOf(source)) words.add(w);
  for (const cues of Object.values(site.page)) {
    for (const cue of cues ?? []) {
      for (const part of [cue.css, cue.text?.[0], cue.name?.[0]]) if (part) for (const w of wordsOf(part)) words.add(w);
    }
  }
  return [...words];
}
