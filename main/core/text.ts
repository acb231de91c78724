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
