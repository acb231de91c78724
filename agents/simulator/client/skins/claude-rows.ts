/**
 * The transcripts claude.ai served in 2026 (see the header of claude.ts), all virtualized
 * here: only the newest rows stay mounted, and every row keeps the attributes the real list
 * maintains for it among ALL the conversation's rows (its index, whether it is the newest,
 * "Message i of n"), mounted or not.
 */
import { el } from '../dom.js';

export type RowRole = 'human' | 'assistant';

export interface ClaudeRows {
  /** The transcript's outermost element, for the scroll area. */
  element: HTMLElement;
  /**
   * Appends a row holding `content`; `inner` is where later content of the row goes, and
   * `beside` where its action bar goes (in `inner`, or beside it where the real page puts it).
   */
  add(role: RowRole, ...content: HTMLElement[]): { row: HTMLElement; inner: HTMLElement; beside: HTMLElement };
  /** The row's own "this turn is done" flag, in layouts that have one. */
  finished(row: HTMLElement): void;
}

/** How one layout builds and numbers its rows. */
interface RowKind {
  list: HTMLElement;
  element: HTMLElement;
  create(role: RowRole, inner: HTMLElement): HTMLElement;
  /** Where a message's action bar goes. */
  beside(row: HTMLElement, inner: HTMLElement): HTMLElement;
  /** Row `index` of `count`: sets what the layout keeps on each row. */
  number(row: HTMLElement, index: number, count: number): void;
  finished(row: HTMLElement): void;
}

/** `[data-testid="transcript-row"]` rows with `data-perf-row*` flags (2026-09-02 snapshot). */
function transcriptRowKind(): RowKind {
  const list = el('div', { 'data-testid': 'transcript-list', class: 'flex flex-col' });
  return {
    list,
    element: list,
    // A row is created already streaming (only the flip to "false" is ever seen on the real site).
    create: (role, inner) =>
      el(
        'div',
        { 'data-testid': 'transcript-row', 'data-perf-row': role, 'data-perf-row-streaming': String(role === 'assistant'), class: 'group relative' },
        inner,
      ),
    number(row, i, count) {
      row.setAttribute('data-index', String(i));
      row.setAttribute('data-last-message', String(i === count - 1));
      row.setAttribute('data-perf-row-from-tail', String(count - 1 - i));
      row.firstElementChild!.setAttribute('aria-label', `Message ${i + 1} of ${count}`);
    },
    beside: (_row, inner) => inner,
    finished: (row) => row.setAttribute('data-perf-row-streaming', 'false'),
  };
}

/**
 * `[data-rs-index]` rows in `[role="article"][aria-label="chat messages"]`, each holding a
 * `[role="article"][aria-label="Message X of N"]` (2026-07-16 live DOM dump). No per-row
 * role or streaming flag: the message's own `data-is-streaming` is the finished signal.
 */
function rsRowKind(): RowKind {
  const list = el('div', { role: 'article', 'aria-label': 'chat messages', class: 'flex flex-col' });
  return {
    list,
    element: el('div', { 'data-testid': 'virtual-message-list' }, list),
    create: (_role, inner) => {
      inner.setAttribute('role', 'article');
      return el('div', { class: 'group relative mb-1' }, inner);
    },
    beside: (_row, inner) => inner,
    number(row, i, count) {
      row.setAttribute('data-rs-index', String(i));
      row.setAttribute('data-last-message', String(i === count - 1));
      row.firstElementChild!.setAttribute('aria-label', `Message ${i + 1} of ${count}`);
    },
    finished: () => {},
  };
}

/**
 * No row wrapper at all (the real pages of 2026-04 and -05, ../shared/real-pages/claude): each
 * message is a `div[data-test-render-count]` › `div.group` › `div.contents` holding the
 * message, and the action bar is the `.contents` box's sibling, so it is not inside the
 * message nor inside any element that holds only the message. No index, no streaming flag:
 * the message's own `data-is-streaming` is the finished signal.
 */
function renderCountKind(): RowKind {
  const list = el('div', { class: 'flex-1 flex flex-col px-4 max-w-3xl mx-auto w-full' });
  return {
    list,
    element: list,
    create: (_role, inner) => {
      inner.className = 'contents';
      return el('div', { 'data-test-render-count': '1' }, el('div', { class: 'group' }, inner));
    },
    beside: (row) => row.firstElementChild as HTMLElement,
    number: () => {},
    finished: () => {},
  };
}

export function claudeRows(layout: string, mounted: number): ClaudeRows {
  const kind = layout === 'rs-rows' ? rsRowKind() : layout === 'render-count' ? renderCountKind() : transcriptRowKind();
  const rows: HTMLElement[] = [];
  return {
    element: kind.element,
    add(role, ...content) {
      const inner = el('div', {}, ...content);
      const row = kind.create(role, inner);
      rows.push(row);
      kind.list.append(row);
      rows.forEach((r, i) => kind.number(r, i, rows.length));
      // Scrolled out of the window: unmounted, as the real list does.
      while (kind.list.children.length > mounted) kind.list.firstElementChild!.remove();
      return { row, inner, beside: kind.beside(row, inner) };
    },
    finished: kind.finished,
  };
}
