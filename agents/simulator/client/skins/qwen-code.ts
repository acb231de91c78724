/**
 * Qwen's code blocks (research/providers-live-2026.md, Qwen; adapters' notes of 2026-07):
 * `pre.qwen-markdown-code` > `.qwen-markdown-code-header` (the language in its first
 * `<div>`, then `.qwen-markdown-code-header-actions`: Copy, Download) + the body
 * `.qwen-markdown-code-body <language>` holding a Monaco editor.
 *
 * Monaco keeps the code in its model, not in the page: it draws only the lines inside its
 * viewport, each an absolutely placed `.view-line` (after a scroll the DOM order is no
 * longer line order), spaces and tabs as runs of no-break spaces up to the tab stop. The
 * block is at most VISIBLE_LINES high and scrolls inside on the wheel, drawing on the next
 * frame. So the page never holds a long block whole, and never holds a tab: the header's
 * Copy (which copies the model's text) is the one exact source.
 */
import { el } from '../dom.js';
import { escapeHtml, type CodeBlock } from '../markdown.js';

const LINE_HEIGHT = 19;
/** Monaco's padding inside the view, as Qwen sets it (two 19 px lines in a 53 px view, real page 2026-05-21). */
const PADDING = 15;
const VISIBLE_LINES = 24;
const TAB_SIZE = 4;
const GUTTER = 44;

const icon = (name: string) =>
  `<svg class="icon" width="16" height="16" aria-hidden="true"><use xlink:href="#icon-line-${name}"></use></svg>`;

/**
 * The block's markup; the body holds the source in an inert `<template>` until
 * `mountEditors` turns it into an editor (so the live page never carries the whole code).
 */
export function renderCode({ language, code }: CodeBlock): string {
  const lang = escapeHtml(language || 'plaintext');
  return (
    `<pre class="qwen-markdown-code"><div class="qwen-markdown-code-header"><div>${lang}</div>` +
    `<div class="qwen-markdown-code-header-actions">` +
    `<div class="qwen-markdown-code-header-action-item">${icon('copy-right')}</div>` +
    `<div class="qwen-markdown-code-header-action-item">${icon('download-02')}</div></div></div>` +
    `<div class="qwen-markdown-code-body ${lang}"><template class="code-source">${escapeHtml(code.replace(/\n$/, ''))}</template></div></pre>`
  );
}

/**
 * Turns every rendered block under `root` into a Monaco editor with a working Copy. With
 * `plainMode` the editor says `plaintext` whatever the block's language, as Qwen's of
 * 2026-05 does (it loads no language modes): the language is then in the header only.
 */
export function mountEditors(root: HTMLElement, plainMode = false): void {
  for (const body of Array.from(root.querySelectorAll<HTMLElement>('.qwen-markdown-code-body'))) {
    const source = body.querySelector(':scope > template.code-source') as HTMLTemplateElement | null;
    if (!source) continue;
    const code = source.content.textContent ?? '';
    source.remove();
    const language = body.classList[1] ?? 'plaintext';
    body.append(monaco(code, plainMode ? 'plaintext' : language, body));
    const copy = body.parentElement?.querySelector('.qwen-markdown-code-header-action-item');
    copy?.addEventListener('click', () => void navigator.clipboard.writeText(code));
  }
}

/** Monaco's text for one line: every space a no-break space, a tab spaces up to the next stop. */
function drawn(line: string): string {
  let out = '';
  for (const ch of line) {
    if (ch === '\t') out += '\u00a0'.repeat(TAB_SIZE - (out.length % TAB_SIZE));
    else out += ch === ' ' ? '\u00a0' : ch;
  }
  return out;
}

function monaco(code: string, language: string, body: HTMLElement): HTMLElement {
  const lines = code.split('\n');
  const total = lines.length * LINE_HEIGHT;
  const height = Math.min(lines.length, VISIBLE_LINES) * LINE_HEIGHT;
  body.style.height = `${height}px`;
  const overlays = el('div', { class: 'margin-view-overlays', role: 'presentation', style: `width:${GUTTER}px;height:${total}px` });
  const viewLines = el('div', {
    class: 'view-lines monaco-mouse-cursor-text',
    role: 'presentation',
    'aria-hidden': 'true',
    'data-mprt': '8',
    style: `line-height:${LINE_HEIGHT}px;position:absolute;height:${total + PADDING}px`,
  });
  const content = el('div', { class: 'lines-content monaco-editor-background', style: `position:absolute;overflow:hidden;width:100%;height:${total}px;top:0px` }, viewLines);
  const scrollable = el(
    'div',
    { class: 'monaco-scrollable-element editor-scrollable vs', role: 'presentation', 'data-mprt': '6', style: `position:absolute;overflow:hidden;left:${GUTTER}px;right:0;height:${height}px` },
    content,
  );
  const margin = el('div', { class: 'margin', role: 'presentation', style: `position:absolute;width:${GUTTER}px;height:${height}px;overflow:hidden` }, overlays);
  // Monaco's own hidden input: a real (1px) textarea inside every editor.
  const input = el('textarea', {
    class: 'inputarea monaco-mouse-cursor-text',
    'aria-label': 'Editor content',
    'aria-readonly': 'true',
    readonly: '',
    autocorrect: 'off',
    spellcheck: 'false',
    style: 'position:absolute;width:1px;height:1px;opacity:0;left:0;top:0',
  });
  const editor = el(
    'div',
    { class: 'monaco-editor no-user-select vs', role: 'code', 'data-mode-id': language, style: `position:relative;height:${height}px` },
    el('div', { class: 'overflow-guard', 'data-mprt': '3', style: `position:relative;overflow:hidden;height:${height}px` }, margin, scrollable, input),
  );

  let scrollTop = 0;
  const drawnLines = new Map<number, { line: HTMLElement; number: HTMLElement }>();
  const draw = () => {
    const first = Math.floor(scrollTop / LINE_HEIGHT);
    const last = Math.min(lines.length - 1, Math.ceil((scrollTop + height) / LINE_HEIGHT) - 1);
    for (const [n, nodes] of drawnLines) {
      if (n < first || n > last) {
        nodes.line.remove();
        nodes.number.remove();
        drawnLines.delete(n);
      }
    }
    // New lines go after the ones kept: Monaco reuses its line nodes, so a scroll up leaves
    // the DOM out of line order; `top` says where each line is.
    for (let n = first; n <= last; n++) {
      if (drawnLines.has(n)) continue;
      const line = el('div', { class: 'view-line', style: `top:${n * LINE_HEIGHT}px;height:${LINE_HEIGHT}px;` }, el('span', {}, el('span', { class: 'mtk1' }, drawn(lines[n]!))));
      const number = el('div', { style: `position:absolute;top:${n * LINE_HEIGHT}px;height:${LINE_HEIGHT}px` }, el('div', { class: 'line-numbers', style: `width:${GUTTER - 16}px` }, String(n + 1)));
      viewLines.append(line);
      overlays.append(number);
      drawnLines.set(n, { line, number });
    }
    content.style.top = `${-scrollTop}px`;
    overlays.style.marginTop = `${-scrollTop}px`;
  };
  scrollable.addEventListener(
    'wheel',
    (event) => {
      const next = Math.max(0, Math.min(total - height, scrollTop + event.deltaY));
      if (next === scrollTop) return;
      event.preventDefault();
      scrollTop = next;
      requestAnimationFrame(draw);
    },
    { passive: false },
  );
  draw();
  return editor;
}
