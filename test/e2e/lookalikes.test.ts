/**
 * The lookalike samples (test/support/lookalikes.ts) cover what the packs take for the
 * sites' notices, so that the tests that put them in answers (lookalike-suite.ts, the real
 * captures' test) try them all: every cue of every pack's login walls, locks, limits and
 * challenges that rendered Markdown can meet is met by a sample standing outside any
 * conversation, and every word of their texts and names, and of the page helpers' own limit
 * and lock words, is said by one. A cue or a word added without a sample fails here.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_SITES } from '../../agents/providers/index.js';
import { addObstacles } from '../../agents/providers/page-helpers/obstacles.js';
import type { Helpers } from '../../agents/providers/page-helpers/types.js';
import type { PageCue } from '../../agents/providers/cues.js';
import { renderMarkdown } from '../../agents/simulator/client/markdown.js';
import { PROVIDERS } from '../../main/core/providers.js';
import { openHelpersPage } from '../support/helpers-page.js';
import { LOOKALIKE_MARKDOWN } from '../support/lookalikes.js';
import { eachWord } from '../support/regex-words.js';

const NOTICE_ROLES = ['loginWall', 'limitBanner', 'accountLock', 'challenge'] as const;

/** The elements rendered Markdown is made of; it writes no attribute but a link's `href`, no class, no id. */
const MARKDOWN_TAGS = new Set(['p', 'a', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'pre', 'code', 'strong', 'em', 'hr', 'br']);

/** `text` cut where `at` says, outside brackets, parentheses and quotes. */
function splitTopLevel(text: string, at: (c: string) => boolean): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let part = '';
  for (const c of text) {
    if (quote) quote = c === quote ? null : quote;
    else if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (depth === 0 && at(c)) {
      parts.push(part);
      part = '';
      continue;
    }
    part += c;
  }
  return [...parts, part].filter((p) => p.trim() !== '');
}

/** A compound selector's functional pseudo-classes, by name, with what they hold. */
function pseudos(compound: string): { name: string; args: string; whole: string }[] {
  const found: { name: string; args: string; whole: string }[] = [];
  for (const m of compound.matchAll(/:(not|has|is|where)\(/g)) {
    let depth = 1;
    let end = m.index + m[0].length;
    for (; end < compound.length && depth > 0; end++) depth += compound[end] === '(' ? 1 : compound[end] === ')' ? -1 : 0;
    found.push({ name: m[1]!, args: compound.slice(m.index + m[0].length, end - 1), whole: compound.slice(m.index, end) });
  }
  return found.filter((p) => !found.some((outer) => outer !== p && outer.whole.includes(p.whole)));
}

/** Whether rendered Markdown can hold an element that `css` finds (the context around it, `main h1`, is the page's). */
function markdownCanMake(css: string): boolean {
  return splitTopLevel(css, (c) => c === ',').some((selector) => {
    const subject = splitTopLevel(selector.trim(), (c) => /[\s>+~]/.test(c)).at(-1) ?? '';
    const groups = pseudos(subject);
    // `:not()` and `:has()` say where it is or what it holds; `:is()` is one of its selectors.
    const own = groups.reduce((rest, p) => rest.replace(p.whole, ''), subject);
    const chosen = groups.filter((p) => p.name === 'is' || p.name === 'where').every((p) => markdownCanMake(p.args));
    const tag = /^[a-z][\w-]*/i.exec(own)?.[0];
    const attributes = Array.from(own.matchAll(/\[\s*([\w-]+)/g), (m) => m[1]!);
    return chosen && (!tag || MARKDOWN_TAGS.has(tag.toLowerCase())) && !/[.#]/.test(own.replace(/\[[^\]]*\]/g, '')) && attributes.every((a) => a === 'href');
  });
}

/** The page helpers' own words for a limit and a lock in a dialog (obstacles.ts), as [source, flags]. */
function helperWords(name: 'LIMIT_WORDS' | 'LOCK_WORDS'): [string, string] {
  const m = new RegExp(`${name} =\\s*\\/(.+?)\\/([a-z]*);`).exec(addObstacles.toString());
  if (!m) throw new Error(`No ${name} in obstacles.ts`);
  return [m[1]!, m[2]!];
}

describe('the lookalike samples', () => {
  let close = async () => {};
  let page: Page;
  beforeAll(async () => {
    ({ page, close } = await openHelpersPage());
    // Outside any conversation, where a notice would be.
    await page.setContent(`<main>${renderMarkdown(LOOKALIKE_MARKDOWN)}</main>`);
  });
  afterAll(() => close());

  it('tells the cues rendered Markdown can meet from those it cannot', () => {
    expect(markdownCanMake('a[href^="/login?"]')).toBe(true);
    expect(markdownCanMake('main h1, [role="heading"]')).toBe(true);
    expect(markdownCanMake('body:not(:has(form)) :is(h1, h2, p, span)')).toBe(true);
    expect(markdownCanMake(':not([data-testid="transcript-list"], :has([role="feed"]))')).toBe(true);
    expect(markdownCanMake('[role="alert"]')).toBe(false);
    expect(markdownCanMake('section[data-composer-stand-in]')).toBe(false);
    expect(markdownCanMake('button')).toBe(false);
    expect(markdownCanMake('.ds-toast')).toBe(false);
    expect(markdownCanMake('#challenge-form, iframe[src*="x"]')).toBe(false);
  });

  it('read back from the page as they are written', async () => {
    const markdown = await page.evaluate(() => window.__chatbridge!.toMarkdown(document.querySelector('main')!));
    expect(markdown).toBe(LOOKALIKE_MARKDOWN);
  });

  it("meet every cue of the packs' notices that Markdown can meet", async () => {
    const missed: string[] = [];
    for (const provider of PROVIDERS) {
      const pack = PROVIDER_SITES[provider].page;
      for (const role of NOTICE_ROLES) {
        const cues = (pack[role] ?? []).filter((cue) => markdownCanMake(cue.css));
        const met = await page.evaluate((list) => list.map((cue) => (window.__chatbridge as Helpers).findAll(cue, document).length > 0), cues as PageCue[]);
        cues.forEach((cue, i) => met[i] || missed.push(`${provider}.${role}: ${cue.css}`));
      }
      // Standing outside any conversation, they are notices to the pack.
      expect(await page.evaluate((p) => window.__chatbridge!.blocker(p), pack), provider).not.toBeNull();
    }
    expect(missed).toEqual([]);
  });

  it("say every word of the packs' notices, and of the page helpers' own limit and lock words", async () => {
    const patterns: { where: string; pattern: [string, string]; by: 'text' | 'name' }[] = [
      ...PROVIDERS.flatMap((provider) =>
        NOTICE_ROLES.flatMap((role) =>
          (PROVIDER_SITES[provider].page[role] ?? []).flatMap((cue, i) =>
            (['text', 'name'] as const).flatMap((by) => (cue[by] ? [{ where: `${provider}.${role}[${i}].${by}`, pattern: cue[by] as [string, string], by }] : [])),
          ),
        ),
      ),
      { where: 'obstacles.ts LIMIT_WORDS', pattern: helperWords('LIMIT_WORDS'), by: 'text' },
      { where: 'obstacles.ts LOCK_WORDS', pattern: helperWords('LOCK_WORDS'), by: 'text' },
    ];
    const words = patterns.flatMap(({ where, pattern: [source, flags], by }) => eachWord(source).map((word) => ({ where, word, flags, by })));
    const unsaid = await page.evaluate((list) => {
      const h = window.__chatbridge as Helpers;
      const all = Array.from(document.querySelectorAll('main *'));
      return list
        .filter(({ word, flags, by }) => {
          const re = new RegExp(word, flags);
          return !all.some((el) => re.test(by === 'name' ? h.accessibleName(el) : (el.textContent ?? '')));
        })
        .map(({ where, word }) => `${where}: /${word}/`);
    }, words);
    expect(unsaid).toEqual([]);
  });
});
