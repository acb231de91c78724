/**
 * How the page helpers find a role's element by its cues (page-helpers/cues.ts): a cue's
 * words, its name and visibility all hold for what it finds, whatever order they are looked
 * at in; a pattern's flags do not carry one test over to the next element; and cues that
 * share a selector each find what their words say. Real Chromium, markup the test sets.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageCue } from '../../agents/providers/cues.js';
import type { Helpers } from '../../agents/providers/page-helpers/types.js';
import { openHelpersPage } from '../support/helpers-page.js';

describe("the page helpers' cues", () => {
  let close = async () => {};
  let page: Page;
  beforeAll(async () => {
    ({ page, close } = await openHelpersPage());
  });
  afterAll(() => close());

  /** The text of what `look` finds with `cues` on `markup`, in document order. */
  const found = (markup: string, cues: PageCue[], look: 'find' | 'findAll') =>
    page.evaluate(
      ([html, c, l]) => {
        document.body.innerHTML = html;
        const h = window.__chatbridge as Helpers;
        const hits = l === 'find' ? [h.find(c)].filter((el) => el !== null) : h.findAll(c[0]!, document);
        return hits.map((el) => el!.textContent);
      },
      [markup, cues, look] as const,
    );

  it('finds every element whose words match a pattern with the g flag, as a user may write one', async () => {
    const markup = ['one', 'two', 'three'].map((n) => `<p>limit reached ${n}</p>`).join('');
    // A `g` pattern's test starts where the last one ended: the second of the three would be missed.
    expect(await found(markup, [{ kind: 'text', css: 'p', text: ['limit', 'gi'] }], 'findAll')).toEqual([
      'limit reached one',
      'limit reached two',
      'limit reached three',
    ]);
  });

  it('finds only what is shown, though the words are read first', async () => {
    const markup = '<p hidden>Usage limit reached</p><p style="display:none">Usage limit reached</p><div style="visibility:hidden"><p>Usage limit reached</p></div><p>Usage limit reached.</p>';
    expect(await found(markup, [{ kind: 'text', css: 'p', text: ['^usage limit', 'i'] }], 'find')).toEqual(['Usage limit reached.']);
  });

  it('gives each of the cues that share a selector what its own words find, then goes on to the next selector', async () => {
    const markup = '<section><p>Something else</p><p>Out of free messages until 5 PM</p></section><aside>Rate limited</aside>';
    const shared = ':not(section, section *)';
    const cues: PageCue[] = [
      { kind: 'text', css: 'section p', text: ['^usage limit', 'i'] },
      { kind: 'text', css: 'section p', text: ['^out of free messages', 'i'] },
    ];
    expect(await found(markup, cues, 'find')).toEqual(['Out of free messages until 5 PM']);
    const other: PageCue[] = [{ kind: 'text', css: shared, text: ['^nothing', ''] }, { kind: 'text', css: shared, text: ['^rate', 'i'] }, { kind: 'text', css: 'section p', text: ['^something', 'i'] }];
    expect(await found(markup, other, 'find')).toEqual(['Rate limited']);
    expect(await found(markup, [other[0]!, other[2]!], 'find')).toEqual(['Something else']);
  });
});
