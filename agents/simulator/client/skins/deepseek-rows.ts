/**
 * DeepSeek's transcripts, one per layout (see the header of deepseek.ts). A message's row
 * holds the message and, once the answer is finished, its toolbar after it.
 */
import { el } from '../dom.js';

export interface DeepSeekRows {
  /** The transcript's outermost element, for the scroll area. */
  element: HTMLElement;
  /** Appends a user message's row. */
  user(text: string): void;
  /** Appends an assistant message's row: reasoning and answer go in `message`, the toolbar in `row`. */
  assistant(): { row: HTMLElement; message: HTMLElement };
  /** The classes of the answer's body. */
  answerClass: string;
}

/** Rows the virtual list keeps mounted: what a window's height shows of a conversation, plus a little. */
const MOUNTED_ROWS = 4;

/** Before the virtual list: one block wrapper (a hashed class, left bare) per `div.ds-message`. */
function classicRows(): DeepSeekRows {
  const list = el('div', {});
  const block = (message: HTMLElement) => {
    const row = el('div', {}, message);
    list.append(row);
    return row;
  };
  return {
    element: list,
    user: (text) => void block(el('div', { class: 'ds-message' }, el('div', { style: 'white-space:pre-wrap' }, text))),
    assistant() {
      const message = el('div', { class: 'ds-message' });
      return { row: block(message), message };
    },
    answerClass: 'ds-markdown ds-assistant-message-main-content',
  };
}

/**
 * The virtual list (2026): `.ds-virtual-list` › `.ds-virtual-list-items` ›
 * `.ds-virtual-list-visible-items` › one row per message, only the newest mounted.
 * `keyed`: rows carry `data-virtual-list-item-key`, signed like the live sample (`-2` the
 * question, `2` its answer, `-4`, `4` …) and still hold `div.ds-message` and
 * `.ds-assistant-message-main-content`. Unkeyed (the 2026-10-04 variant): none of those,
 * rows and messages carry hashed classes only; `.ds-markdown` and the other `ds-`
 * design-system classes remain, and with no key to reuse a row by, the list renders its
 * mounted rows anew as a new exchange starts: the same messages in new elements.
 */
function virtualRows(keyed: boolean): DeepSeekRows {
  const visible = el('div', { class: 'ds-virtual-list-visible-items' });
  const element = el('div', { class: 'ds-virtual-list _765a5cd' }, el('div', { class: 'ds-virtual-list-items' }, visible));
  let exchanges = 0;
  const row = (key: number, message: HTMLElement) => {
    const r = el('div', keyed ? { 'data-virtual-list-item-key': String(key), class: '_4f9bf79' } : { class: '_4f9bf79 d7dc56a8' }, message);
    visible.append(r);
    while (visible.children.length > MOUNTED_ROWS) visible.firstElementChild!.remove();
    return r;
  };
  return {
    element,
    user(text) {
      exchanges++;
      if (!keyed) for (const old of Array.from(visible.children)) old.replaceWith(old.cloneNode(true));
      const body = el('div', { class: 'fbb737a4', style: 'white-space:pre-wrap' }, text);
      row(-2 * exchanges, el('div', { class: keyed ? 'ds-message _9663006' : '_9663006' }, body));
    },
    assistant() {
      const message = el('div', { class: keyed ? 'ds-message _7eb2358' : '_7eb2358 _58a6d71' });
      return { row: row(2 * exchanges, message), message };
    },
    answerClass: keyed ? 'ds-markdown ds-assistant-message-main-content' : 'ds-markdown',
  };
}

export function deepseekRows(layout: string): DeepSeekRows {
  if (layout === 'classic') return classicRows();
  return virtualRows(layout === 'virtual-list');
}
