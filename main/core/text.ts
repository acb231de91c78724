/**
 * Length in characters (Unicode code points), the way the request schemas count them: a
 * character outside the BMP counts once, not as its two UTF-16 halves.
 */
export function charLength(text: string): number {
  let surrogates = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) surrogates++;
  }
  return text.length - surrogates;
}

/**
 * Characters that show nothing: whitespace, control characters, and the format characters
 * people paste by accident (zero-width spaces and joiners, the word joiner, the byte-order
 * mark, soft hyphens, invisible operators, Hangul fillers, braille blank).
 */
const INVISIBLE = /[\s\p{Cc}\p{Cf}\u115F\u1160\u3164\uFFA0\u2800]/gu;

/** Whether a person would see any text in `text`: a prompt without any cannot be typed into a chat. */
export function hasVisibleText(text: string): boolean {
  return text.replace(INVISIBLE, '') !== '';
}
