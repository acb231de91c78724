/**
 * A seeded PRNG for generated requests: every run sends the same ones, so a failure found
 * once is found again.
 */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** mulberry32: a float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** A string of `length` characters drawn from `pool` (code points, never `[[`). */
  text(length: number, pool: readonly string[] = TEXT_POOL): string {
    let out = '';
    for (let i = 0; i < length; i++) out += this.pick(pool);
    return out.replace(/\[\[/g, '[ [');
  }
}

/** Characters for generated text: ASCII, Latin-1, scripts, emoji, controls, bidi and zero-width marks. */
const TEXT_POOL = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.,;:!?"\'\\/{}()<>%$#@&*+=|~`^',
  'é', 'ß', 'Ж', 'я', 'ש', 'ع', '日', '本', '語', '한', 'ก', '€', '✓', '🎉', '🔥', '👍🏽', '👨‍👩‍👧',
  '\u0000', '\u0001', '\u001f', '\u007f', '\t', '\n', '\r', '\u00a0', '\u200b', '\u200d', '\u202e', '\u2028', '\u2029', '\ufeff', '\uffff',
];
