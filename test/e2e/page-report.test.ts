/**
 * The page helpers look a turn's roles up one way for the flow and for `sites check`
 * (report): in the turn's own scope, never in an earlier turn's. A page with a finished
 * turn and, after the prompt, one still being written.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHelpersPage } from '../support/helpers-page.js';
import { packJson, type PagePack } from '../../agents/providers/site.js';

const css = (selector: string) => [{ kind: 'structure' as const, css: selector }];
const PACK: PagePack = {
  assistantTurn: css('.turn'),
  answer: css('.body'),
  finished: css('.actions'),
  copy: css('.actions button'),
};
/** Each turn's actions row is its sibling in a `.message` box; the thread around them all must not count as a scope. */
const SCOPE = ['.thread', '.message'];

const message = (n: number, done: boolean) =>
  `<div class="message"><div class="turn"><div class="body"><p>Answer ${n}</p></div></div>${done ? '<div class="actions"><button>Copy</button></div>' : ''}</div>`;

describe('the page helpers, on one turn among several', () => {
  let close = async () => {};
  let page: Page;
  beforeAll(async () => {
    ({ page, close } = await openHelpersPage());
    await page.setContent(`<div class="thread">${message(1, true)}</div><p class="outside">Copy</p>`);
    await page.evaluate((p) => window.__chatbridge!.markTurns(p), PACK);
    await page.evaluate((html) => document.querySelector('.thread')!.insertAdjacentHTML('beforeend', html), message(2, false));
  });
  afterAll(() => close());

  it("finds neither the finished signal nor the Copy of the new turn in an earlier turn's row", async () => {
    const seen = await page.evaluate(
      ([p, scope]) => {
        const h = window.__chatbridge!;
        return { finished: h.inTurn(p, 'finished', scope), copy: h.inTurn(p, 'copy', scope), report: h.report(p, scope) };
      },
      [PACK, SCOPE] as const,
    );
    expect(seen.finished).toBeNull();
    expect(seen.copy).toBeNull();
    expect(seen.report).toMatchObject({ assistantTurn: 0, answer: 0, finished: -1, copy: -1 });
  });

  it('reports them once the new turn shows its own, as the flow then finds them', async () => {
    await page.evaluate(() => document.querySelectorAll('.message')[1]!.insertAdjacentHTML('beforeend', '<div class="actions"><button>Copy</button></div>'));
    const seen = await page.evaluate(
      ([p, scope]) => {
        const h = window.__chatbridge!;
        const copy = h.inTurn(p, 'copy', scope);
        return { copyOfTurn2: copy?.closest('.message') === document.querySelectorAll('.message')[1], report: h.report(p, scope) };
      },
      [PACK, SCOPE] as const,
    );
    expect(seen.copyOfTurn2).toBe(true);
    expect(seen.report).toMatchObject({ finished: 0, copy: 0 });
  });

  it('takes a pack as the one string the flow sends, parsed once in the page', async () => {
    expect(packJson(PACK)).toBe(JSON.stringify(PACK));
    const seen = await page.evaluate((json) => {
      const h = window.__chatbridge!;
      return { pack: h.pack(json), again: h.pack(json) === h.pack(json), turns: h.turns(h.pack(json)).length };
    }, packJson(PACK));
    expect(seen).toEqual({ pack: PACK, again: true, turns: 2 });
  });

  it("reads the answer inside the turn, as the flow does, and every part of it", async () => {
    await page.evaluate(() => document.querySelectorAll('.turn')[1]!.insertAdjacentHTML('beforeend', '<div class="body"><p>and its second part</p></div>'));
    const markdown = await page.evaluate((p) => window.__chatbridge!.answerMarkdown(p, window.__chatbridge!.turns(p).at(-1)!), PACK);
    expect(markdown).toBe('Answer 2\n\nand its second part');
  });
});
