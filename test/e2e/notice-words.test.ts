/**
 * A notice's words, as a person reads them: the flow quotes an error card, a limit or a lock
 * in the attempt's detail and the dashboard, and its buttons' labels are not part of it.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHelpersPage } from '../support/helpers-page.js';
import type { Helpers } from '../../agents/providers/page-helpers/types.js';

describe("the page helpers' words of a notice", () => {
  let close = async () => {};
  let page: Page;
  beforeAll(async () => {
    ({ page, close } = await openHelpersPage());
  });
  afterAll(() => close());

  const wordsOf = (html: string) =>
    page.evaluate((markup) => {
      document.body.innerHTML = markup;
      // textOf is shared among the helper modules, not part of what the flow calls.
      return (window.__chatbridge as Helpers).textOf(document.body.firstElementChild!);
    }, html);

  it('leaves out the labels of its buttons, which the text would otherwise glue onto the message', async () => {
    const card = '<div role="alert"><p>Something went wrong. Please try again later.</p><button>Retry</button><span role="button">Dismiss</span></div>';
    expect(await wordsOf(card)).toBe('Something went wrong. Please try again later.');
  });

  it('keeps links, which are part of what the notice says, and a notice that is only a button', async () => {
    expect(await wordsOf('<div>Limits will reset at 9:30 AM. <a href="/usage">View your usage details</a></div>')).toBe(
      'Limits will reset at 9:30 AM. View your usage details',
    );
    expect(await wordsOf('<button>Try again</button>')).toBe('Try again');
  });
});
