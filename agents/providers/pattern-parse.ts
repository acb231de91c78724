/**
 * A JavaScript regular expression (one that compiles) read as what the ambiguity check of
 * pattern-safety.ts needs: which parts match one character (atoms, each with the source a
 * native RegExp tests it by), how they are sequenced, alternated and repeated. Assertions
 * (^, $, \b, \B) match no character and are kept as nothing. What the check cannot bound is
 * refused here with the reason: backreferences, lookarounds, and groups of other kinds.
 */

export type PatternNode =
  /** One character of the text: `char` when it is exactly one (before case folding), else a class. */
  | { kind: 'atom'; raw: string; char?: string }
  | { kind: 'seq'; items: PatternNode[] }
  | { kind: 'alt'; options: PatternNode[] }
  /** `max` is Infinity for an unbounded repetition. */
  | { kind: 'repeat'; body: PatternNode; min: number; max: number }
  /** An assertion, or an empty alternative: it matches no character. */
  | { kind: 'nothing' };

/** A pattern the check refuses outright, with the reason in words. */
export class Unbounded extends Error {}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', f: '\f', v: '\v' };

export function parsePattern(source: string, unicode: boolean): PatternNode {
  const parser = new Parser(source, unicode);
  const node = parser.alternatives();
  if (!parser.done()) throw new Unbounded(`an unexpected "${source[parser.at]}"`);
  return node;
}

class Parser {
  at = 0;

  constructor(
    private readonly source: string,
    private readonly unicode: boolean,
  ) {}

  done(): boolean {
    return this.at >= this.source.length;
  }

  alternatives(): PatternNode {
    const options = [this.sequence()];
    while (this.source[this.at] === '|') {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options };
  }

  private sequence(): PatternNode {
    const items: PatternNode[] = [];
    while (!this.done() && this.source[this.at] !== '|' && this.source[this.at] !== ')') {
      const term = this.term();
      const times = this.quantifier();
      items.push(times ? { kind: 'repeat', body: term, ...times } : term);
    }
    return items.length === 0 ? { kind: 'nothing' } : items.length === 1 ? items[0]! : { kind: 'seq', items };
  }

  /** `*`, `+`, `?` or `{n}`, `{n,}`, `{n,m}`, lazy or not; null when none follows. */
  private quantifier(): { min: number; max: number } | null {
    const rest = this.source.slice(this.at);
    const braces = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    const found =
      rest[0] === '*' ? { min: 0, max: Infinity, length: 1 }
      : rest[0] === '+' ? { min: 1, max: Infinity, length: 1 }
      : rest[0] === '?' ? { min: 0, max: 1, length: 1 }
      : braces ? { min: Number(braces[1]), max: braces[2] === undefined ? Number(braces[1]) : braces[3] ? Number(braces[3]) : Infinity, length: braces[0].length }
      : null;
    if (!found) return null;
    this.at += found.length;
    if (this.source[this.at] === '?') this.at++;
    return { min: found.min, max: found.max };
  }

  private term(): PatternNode {
    const s = this.source;
    const c = s[this.at]!;
    if (c === '^' || c === '$') {
      this.at++;
      return { kind: 'nothing' };
    }
    if (c === '(') return this.group();
    if (c === '[') return this.charClass();
    if (c === '\\') return this.escape();
    if (c === '.') return this.atom(1);
    // A literal: in unicode mode one code point, which may be two code units.
    const char = this.unicode ? String.fromCodePoint(s.codePointAt(this.at)!) : c;
    this.at += char.length;
    return { kind: 'atom', raw: /[{}\]]/.test(char) ? `\\${char}` : char, char };
  }

  private atom(length: number, char?: string): PatternNode {
    const raw = this.source.slice(this.at, this.at + length);
    this.at += length;
    return char === undefined ? { kind: 'atom', raw } : { kind: 'atom', raw, char };
  }

  private group(): PatternNode {
    const rest = this.source.slice(this.at);
    if (/^\(\?(=|!|<=|<!)/.test(rest)) throw new Unbounded('a lookaround ((?=…), (?!…), (?<=…), (?<!…))');
    const opening = /^\((\?:|\?<[^>]+>)?/.exec(rest)!;
    if (rest.startsWith('(?') && opening[1] === undefined) throw new Unbounded(`a group of a kind the check does not know ("${rest.slice(0, 3)}")`);
    this.at += opening[0].length;
    const inner = this.alternatives();
    if (this.source[this.at] !== ')') throw new Unbounded('an unclosed group');
    this.at++;
    return inner;
  }

  /** `[…]`, to its closing bracket: tested as a whole by the native engine. */
  private charClass(): PatternNode {
    const s = this.source;
    let end = this.at + 1;
    if (s[end] === '^') end++;
    while (end < s.length && s[end] !== ']') end += s[end] === '\\' ? 2 : 1;
    if (end >= s.length) throw new Unbounded('an unclosed character class');
    return this.atom(end + 1 - this.at);
  }

  private escape(): PatternNode {
    const s = this.source;
    const next = s[this.at + 1] ?? '';
    const rest = s.slice(this.at + 2);
    if (next === 'b' || next === 'B') {
      this.at += 2;
      return { kind: 'nothing' };
    }
    if (/[1-9]/.test(next) || next === 'k') throw new Unbounded('a backreference (\\1, \\k<name>)');
    if (next === '0') {
      if (/^\d/.test(rest)) throw new Unbounded('an octal escape (write \\x.. or \\u....)');
      return this.atom(2, '\0');
    }
    if (/[dDwWsS]/.test(next)) return this.atom(2);
    if ((next === 'p' || next === 'P') && this.unicode) return this.atom(2 + rest.indexOf('}') + 1);
    if (next in SIMPLE_ESCAPES) return this.atom(2, SIMPLE_ESCAPES[next]);
    const hex = next === 'x' ? /^[0-9a-fA-F]{2}/.exec(rest) : next === 'u' ? (this.unicode ? /^\{[0-9a-fA-F]+\}|^[0-9a-fA-F]{4}/ : /^[0-9a-fA-F]{4}/).exec(rest) : null;
    if (hex) return this.atom(2 + hex[0].length, String.fromCodePoint(parseInt(hex[0].replace(/[{}]/g, ''), 16)));
    if (next === 'c') {
      // Without its letter, \c is two characters of the text (a backslash and a c): write them so.
      if (!/^[a-zA-Z]/.test(rest)) throw new Unbounded('a \\c without its control letter');
      return this.atom(3, String.fromCharCode(rest.charCodeAt(0) % 32));
    }
    // An identity escape: the character itself.
    const char = this.unicode ? String.fromCodePoint(s.codePointAt(this.at + 1)!) : next;
    return this.atom(1 + char.length, char);
  }
}
