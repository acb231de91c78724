/**
 * The documentation's links: README.md (the front page) and the topic pages in docs/. Every
 * relative link leads to a file of the repository and every `#anchor` to a heading of its
 * page (as GitHub names headings); every topic page has a title and is linked from the front
 * page; and no page sends a reader to `../shared`, which a clone does not have.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

/** The page without its fenced code blocks (a `# comment` in a shell block is no heading, a `[x](y)` in code no link). */
function prose(text: string): string[] {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      lines.push('');
      continue;
    }
    lines.push(fence === null ? line : '');
  }
  return lines;
}

/** A heading's anchor as GitHub makes it: the text as shown, lower case, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  const shown = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/\*\*?|__/g, '');
  return shown
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings, repeats numbered as GitHub numbers them (`name`, `name-1`, …). */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(readFileSync(join(ROOT, page), 'utf8'))) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every inline link's target on a page, outside code, with its line number. */
function links(page: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  prose(readFileSync(join(ROOT, page), 'utf8')).forEach((text, i) => {
    const outsideCode = text.replace(/`[^`]*`/g, '');
    for (const m of outsideCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ target: m[1]!, line: i + 1 });
  });
  return found;
}

describe('the documentation (README.md and docs/)', () => {
  it('has the front page and topic pages, each with a title on its first line', () => {
    expect(PAGES.length).toBeGreaterThan(1);
    for (const page of PAGES) expect(readFileSync(join(ROOT, page), 'utf8'), page).toMatch(/^# \S/);
  });

  it('makes anchors as GitHub does', () => {
    expect(slug('`"wait": false` only starts a job that can start now')).toBe('wait-false-only-starts-a-job-that-can-start-now');
    expect(slug("Variants are the operator's to allow")).toBe('variants-are-the-operators-to-allow');
    expect(slug('From Node: `chatbridge/client`')).toBe('from-node-chatbridgeclient');
    expect(slug('Several machines (one PostgreSQL)')).toBe('several-machines-one-postgresql');
  });

  it('links only to files that exist and to headings their pages have', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const { target, line } of links(page)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …: not a file of the repository
        const [path = '', anchor] = target.split('#', 2);
        const file = path === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), decodeURI(path));
        const where = `${page}:${line} → ${target}`;
        if (!relative(ROOT, file) || relative(ROOT, file).startsWith('..')) broken.push(`${where}: outside the repository`);
        else if (!existsSync(file)) broken.push(`${where}: no such file`);
        else if (anchor !== undefined) {
          if (!file.endsWith('.md') || statSync(file).isDirectory()) broken.push(`${where}: an anchor into a file that is not a page`);
          else if (!anchors(relative(ROOT, file)).has(anchor)) broken.push(`${where}: no heading makes #${anchor}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('links every topic page from the front page', () => {
    const linked = new Set(links('README.md').map(({ target }) => target.split('#')[0]));
    expect(PAGES.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });

  it('never sends a reader to ../shared, which a clone does not have', () => {
    expect(PAGES.filter((page) => readFileSync(join(ROOT, page), 'utf8').includes('../shared'))).toEqual([]);
  });
});
