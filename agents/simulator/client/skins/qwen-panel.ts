/**
 * Qwen's `chat-panel` layout, as the real page of 2026-05-21 shows it
 * (real-pages/qwen/covai-ai-chat-exporter-2026-05-21.html):
 * - the header's model selector `span.ant-dropdown-trigger > div.index-module__model-selector…`;
 * - a user message `.qwen-chat-message-user` > `.chat-user-message-container-wrapper` >
 *   `.chat-user-message-container` holding the text (`p.user-message-content`) and its
 *   `.message-hoc-container > .user-message-footer` row (Copy, Edit);
 * - an answer `.chat-response-message` > `.chat-response-message-right` > an unnamed `<div>`
 *   (the "Thought completed" card, then `.response-message-content.t2t.phase-answer >
 *   .custom-qwen-markdown > .qwen-markdown`), then, once done, `.message-hoc-container >
 *   .response-message-footer > .qwen-chat-package-comp-new-action-control > …-icons` with six
 *   icon actions (Copy, Good, Bad, Regenerate, Share, More): `<div>`s with a tooltip
 *   (`aria-describedby`) around an icon, no role and no label; then a hidden, empty
 *   `button.copy-response-button`;
 * - the Markdown as Qwen's renderer writes it: paragraphs are `div.qwen-markdown-paragraph`
 *   of `span.qwen-markdown-text`, `div.qwen-markdown-space` between blocks, tables in a
 *   wrapper with a header action and a scroll box, code blocks whose Monaco editor says
 *   `plaintext` (the language is in the block's header only);
 * - the composer area: a mode select, a hidden file input, the textarea, then the thinking
 *   select ("Auto"), the voice input button (labelled) and the send slot.
 */
import { el } from '../dom.js';

const ACTION = 'qwen-chat-package-comp-new-action-control';

const icon = (body: string) => `<svg width="1em" height="1em" fill="currentColor" aria-hidden="true" focusable="false">${body}</svg>`;
const ICONS: Record<string, string> = {
  copy: icon('<path d="M5 5h8v8H5zM3 11V3h8"/>'),
  good: icon('<path d="M2 7h3v7H2zM6 7l3-5 1 1-1 4h4l-1 7H6z"/>'),
  bad: icon('<path d="M2 2h3v7H2zM6 9l3 5 1-1-1-4h4l-1-7H6z"/>'),
  regenerate: icon('<path d="M13 8a5 5 0 11-1.5-3.5M13 2v3h-3"/>'),
  share: icon('<path d="M4 9v4h8V9M8 2v8M5 5l3-3 3 3"/>'),
  more: icon('<path d="M3 8h.01M8 8h.01M13 8h.01"/>'),
  edit: icon('<path d="M3 13l1-4 7-7 3 3-7 7z"/>'),
  microphone: icon('<path d="M8 1a2 2 0 012 2v5a2 2 0 01-4 0V3a2 2 0 012-2zM4 8a4 4 0 008 0M8 12v3"/>'),
  chevron: icon('<path d="M4 6l4 4 4-4"/>'),
};

export const PANEL_STYLE = `
.response-message-footer-none{display:none}
.qwen-markdown-space{height:8px}
.${ACTION}-icons{display:flex;gap:6px}
.${ACTION}-container{display:inline-flex;width:28px;height:28px;align-items:center;justify-content:center;cursor:pointer}
.message-input-container-area{display:flex;gap:8px;align-items:flex-end}
.message-input-right-button{display:flex;gap:6px;align-items:center}
`;

/** React's `useId`, as the tooltips' `aria-describedby` show it (`_r_k3_`). */
let ids = 0;
const reactId = () => `_r_${(ids++).toString(36)}_`;

/** One icon action of a footer row; `onClick` for the one that acts in the simulation. */
function action(name: string, onClick?: () => void): HTMLElement {
  const control = el(
    'div',
    { class: `${ACTION}-container ${ACTION}-container-${name} ${ACTION}-container-enable-hover`, 'aria-describedby': reactId() },
    iconSpan(name, `anticon ${ACTION}-icon`),
  );
  if (onClick) control.addEventListener('click', onClick);
  return control;
}

function iconSpan(name: string, className = 'anticon'): HTMLElement {
  const span = el('span', { role: 'img', class: className });
  span.innerHTML = ICONS[name]!;
  return span;
}

/** The header with the model selector (the variant picker puts its working control in its place). */
export function panelHeader(model: string): HTMLElement {
  return el(
    'header',
    { class: 'header-desktop' },
    el(
      'div',
      { class: 'header-content', id: 'qwen-chat-header-content' },
      el(
        'div',
        { class: 'header-left', id: 'qwen-chat-header-left' },
        el(
          'span',
          { class: 'ant-dropdown-trigger', style: 'cursor: pointer' },
          el('div', { class: 'index-module__model-selector___rdCim' }, el('div', { class: 'index-module__model-selector-text___XvWe0' }, model), iconSpan('chevron')),
        ),
      ),
    ),
  );
}

/** The composer area around `textarea` and the send slot. */
export function panelComposer(textarea: HTMLElement, sendSlot: HTMLElement): HTMLElement {
  const voice = el('button', { id: 'voice-input-button', class: 'record-btn', type: 'button', 'aria-label': 'Voice Input', 'aria-describedby': reactId() }, iconSpan('microphone', 'anticon microphone-icon'));
  const thinking = el(
    'div',
    { class: 'qwen-thinking-selector' },
    el(
      'div',
      { class: 'ant-select ant-select-outlined qwen-select-thinking' },
      el('div', { class: 'ant-select-selector' }, el('span', { class: 'ant-select-selection-item' }, el('div', { class: 'qwen-select-thinking-label' }, el('span', { class: 'qwen-select-thinking-label-text' }, 'Auto')))),
    ),
  );
  return el(
    'div',
    { class: 'chat-layout-input-container' },
    el(
      'div',
      { class: 'message-input-wrapper' },
      el(
        'div',
        { class: 'message-input-container' },
        el(
          'div',
          {},
          el(
            'div',
            { class: 'message-input-container-area' },
            el('div', { class: 'mode-select' }, el('div', { class: 'mode-select-open' }, iconSpan('chevron'))),
            textarea,
            el(
              'div',
              { class: 'message-input-right-button' },
              thinking,
              el('div', { class: 'record-btn-container' }, voice),
              el('div', { class: 'message-input-right-button-send' }, sendSlot),
            ),
          ),
        ),
      ),
    ),
  );
}

/** A user message with its text and its Copy and Edit row. */
export function panelUserMessage(text: string): HTMLElement {
  return el(
    'div',
    { class: 'qwen-chat-message qwen-chat-message-user', id: `qwen-chat-message-user-${crypto.randomUUID()}`, style: 'padding-right: 22px' },
    el(
      'div',
      { class: 'chat-user-message-container-wrapper' },
      el(
        'div',
        { class: 'chat-user-message-container' },
        el(
          'div',
          { class: '', style: 'position: relative; width: 100%' },
          el(
            'div',
            { class: 'chat-user-message-wrapper' },
            el('div', { class: 'chat-user-message' }, el('div', { class: 'chunked-text-renderer-root' }, el('p', { class: 'whitespace-pre-wrap user-message-content fade-in' }, text))),
          ),
        ),
        el(
          'div',
          { class: 'message-hoc-container' },
          el('div', { class: 'user-message-footer' }, el('div', { class: `${ACTION} user-message-footer-actions` }, el('div', { class: `${ACTION}-icons` }, action('copy'), action('edit')))),
        ),
      ),
    ),
  );
}

/** The finished answer's row (Copy copies `markdown`), and the hidden copy button after it. */
export function panelFooter(copy: () => void): HTMLElement[] {
  const row = el('div', { class: `${ACTION}-icons` }, action('copy', copy), action('good'), action('bad'), action('regenerate'), action('share'), action('more'));
  return [
    el('div', { class: 'message-hoc-container' }, el('div', { class: 'response-message-footer' }, el('div', { class: `${ACTION} undefined` }, row))),
    el('button', { class: 'copy-response-button response-message-footer-none' }),
  ];
}

/**
 * Rewrites the simulator's rendered Markdown under `root` as Qwen's renderer writes it:
 * paragraphs as `div.qwen-markdown-paragraph` of text spans, a space between blocks, tables
 * in their wrapper, code headers in theirs.
 */
export function dressMarkdown(root: HTMLElement): void {
  for (const p of Array.from(root.querySelectorAll('p'))) {
    const paragraph = el('div', { class: 'qwen-markdown-paragraph' });
    for (const node of Array.from(p.childNodes)) paragraph.append(node.nodeType === Node.TEXT_NODE ? el('span', { class: 'qwen-markdown-text' }, node.textContent ?? '') : node);
    for (const strong of Array.from(paragraph.querySelectorAll('strong'))) strong.classList.add('qwen-markdown-strong');
    p.replaceWith(paragraph);
  }
  for (const table of Array.from(root.querySelectorAll('table'))) {
    table.className = 'qwen-markdown-table';
    for (const cell of Array.from(table.querySelectorAll('th, td'))) {
      const col = el('div', { class: `qwen-markdown-table-${cell.tagName === 'TH' ? 'thead-tr-th' : 'tbody-tr-td'}-col` });
      col.append(...Array.from(cell.childNodes));
      cell.replaceChildren(col);
    }
    const header = el('div', { class: 'qwen-markdown-table-header' }, el('span', {}, el('div', { class: 'qwen-markdown-table-header-action-item' }, iconSpan('more'))));
    const wrapper = el('div', { class: 'qwen-markdown-table-wrapper' }, header);
    table.replaceWith(wrapper);
    wrapper.append(el('div', { class: 'qwen-markdown-table-scroll-wrapper' }, table));
  }
  for (const header of Array.from(root.querySelectorAll('pre > .qwen-markdown-code-header'))) {
    const wrapper = el('div', { class: 'qwen-markdown-code-header-wrapper qwen-markdown-code-header-wrapper-sticky' });
    header.replaceWith(wrapper);
    wrapper.append(header);
  }
  for (const block of Array.from(root.children).slice(1)) block.before(el('div', { class: 'qwen-markdown-space' }));
}
