/**
 * Names a drifted page gives its classes, ids and test ids, and the same renaming applied to
 * CSS selectors, so the simulator's own stylesheets follow the page they style. Pure
 * functions: the drift (drift.ts) runs them in the page, the tests in Node.
 */

/**
 * A build hash of a name, the way CSS modules and bundlers emit them (`_1k3x9qz`): the
 * same name gives the same hash on every page load, and nothing of the name shows.
 */
export function buildHash(name: string): string {
  // FNV-1a, 32 bits.
  let hash = 0x811c9dc5;
  for (const char of name) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `_${hash.toString(36).padStart(7, '0')}`;
}

/** A renamed test id: a release that renamed its test hooks keeps none of the old words. */
export function renamedTestId(value: string): string {
  return `qa${buildHash(value)}`;
}

export interface SelectorRenames {
  /** A class name or id (one namespace: both are hashed alike). */
  name?: (name: string) => string;
  /** The value of attribute `attr` in an `[attr="value"]` selector, or null to leave it. */
  attribute?: (attr: string, value: string) => string | null;
}

/**
 * `selector` with its `.class` and `#id` names, and the values of its exact-match attribute
 * selectors, renamed. Quoted strings are left alone; escapes in names are understood.
 */
export function renameInSelector(selector: string, renames: SelectorRenames): string {
  let out = '';
  let i = 0;
  while (i < selector.length) {
    const c = selector[i]!;
    if (c === '"' || c === "'") {
      const end = closingQuote(selector, i);
      out += selector.slice(i, end + 1);
      i = end + 1;
    } else if (c === '[') {
      const end = closingBracket(selector, i);
      out += renameAttribute(selector.slice(i, end + 1), renames);
      i = end + 1;
    } else if (c === '\\') {
      out += selector.slice(i, i + 2);
      i += 2;
    } else if ((c === '.' || c === '#') && renames.name) {
      const ident = readIdent(selector, i + 1);
      if (ident) {
        out += c + renames.name(ident.name);
        i = ident.end;
      } else {
        out += c;
        i++;
      }
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function renameAttribute(part: string, renames: SelectorRenames): string {
  const m = /^\[\s*([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([\w-]+))\s*(\s[is])?\]$/.exec(part);
  if (!m || !renames.attribute) return part;
  const [, attr, double, single, bare, flag = ''] = m;
  const renamed = renames.attribute(attr!, double ?? single ?? bare ?? '');
  return renamed === null ? part : `[${attr}="${renamed}"${flag}]`;
}

function closingQuote(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  return text.length - 1;
}

function closingBracket(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '"' || text[i] === "'") i = closingQuote(text, i);
    else if (text[i] === ']') return i;
  }
  return text.length - 1;
}

/** A CSS identifier starting at `start` (unescaped), and where it ends. */
function readIdent(text: string, start: number): { name: string; end: number } | null {
  let name = '';
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      name += text[i + 1];
      i += 2;
    } else if (/[\w-]/.test(c) || c.charCodeAt(0) > 0x7f) {
      name += c;
      i++;
    } else break;
  }
  // An identifier cannot start with a digit (nor a hyphen and a digit): `.5s` is no class.
  return name && !/^-?\d/.test(name) ? { name, end: i } : null;
}
