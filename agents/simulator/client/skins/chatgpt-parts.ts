/**
 * Pieces of ChatGPT's page that more than one of its layouts shows
 * (research/providers-live-2026.md, "ChatGPT"): CodeMirror code blocks, the Canvas editor
 * that sits before the composer, project chat addresses, and the A/B "Which response do
 * you prefer?" chooser; and the `[[sim:…]]` directives only the ChatGPT skin obeys, read
 * from the prompt as the page shows it.
 */
import { simSelector } from '../drift-lookups.js';
import { el } from '../dom.js';
import { escapeHtml, type CodeBlock } from '../markdown.js';
import type { ChatGptWords } from './chatgpt-words.js';

/** What a prompt asks of the ChatGPT page beyond the directives every site obeys (answer.ts). */
export interface ChatGptAsks {
  /** Shown by the page now, not replayed from the conversation's history. */
  live: boolean;
  /** `[[sim:ab]]`: two answers and the "Which response do you prefer?" chooser. */
  ab: boolean;
  /** `[[sim:canvas]]`: the answer opens a Canvas code editor, for the rest of the conversation. */
  canvas: boolean;
  /** `[[sim:project]]`: the new conversation lives in a project, `/g/g-p-…/c/<id>`. */
  project: boolean;
  /** `[[sim:review]]`: the safety-review status notice while the answer starts (app-shell). */
  review: boolean;
  /** `[[sim:stale]]`: the finished turn keeps `data-talvt-turn-state="in_progress"` (app-shell). */
  stale: boolean;
  /** `[[sim:work]]`: after answering, the page switches to Work mode and remembers it (app-shell). */
  work: boolean;
}

const NOTHING: ChatGptAsks = { live: false, ab: false, canvas: false, project: false, review: false, stale: false, work: false };

/**
 * Follows the prompts the page shows: the engine (app.ts) first replays the conversation's
 * history, then shows each prompt sent. `current` is what the latest prompt asked.
 */
export function promptWatcher(historyLength: number): { user(text: string): ChatGptAsks; readonly current: ChatGptAsks } {
  let shown = 0;
  let current = NOTHING;
  return {
    user(text) {
      const has = (name: string) => text.includes(`[[sim:${name}]]`);
      current = {
        live: shown++ >= historyLength,
        ab: has('ab'),
        canvas: has('canvas'),
        project: has('project'),
        review: has('review'),
        stale: has('stale'),
        work: has('work'),
      };
      return current;
    },
    get current() {
      return current;
    },
  };
}

/**
 * How ChatGPT's code-block header names a language: a capitalized display name ("Bash" in
 * #62497009795) where the Markdown fence says `bash`; plain text keeps its fence word.
 */
function displayName(language: string): string {
  return language === 'text' ? language : language.charAt(0).toUpperCase() + language.slice(1);
}

/**
 * Code blocks as CodeMirror viewers (research: "Code blocks are now CodeMirror",
 * #62497009795): inside the `<pre>`, a sticky header with the language and a Copy button
 * (the page's text reads "Bash Copy" before the code), then `.cm-content` with one
 * `.cm-line` per line and no newline characters at all. CodeMirror 6 names the language
 * it highlights in `data-language`; an empty line holds a `<br>`.
 */
export function codeMirrorBlock(words: Pick<ChatGptWords, 'copy'>): (block: CodeBlock) => string {
  return ({ language, code }) => {
    const lines = code.replace(/\n$/, '').split('\n');
    const body = lines.map((line) => `<div class="cm-line">${line ? escapeHtml(line) : '<br>'}</div>`).join('');
    const lang = language ? ` data-language="${escapeHtml(language)}"` : '';
    return (
      `<pre class="overflow-visible! px-0!"><div class="relative w-full mt-4 mb-1"><div class="border border-token-border-light rounded-3xl">` +
      `<div class="sticky z-2 select-none"><div class="flex w-full items-center justify-between">` +
      `<div class="flex min-w-0 items-center text-sm font-medium text-token-text-primary"><svg aria-hidden="true" width="16" height="16"></svg>${escapeHtml(displayName(language))}</div>` +
      `<button aria-label="${escapeHtml(words.copy)}" data-state="closed" class="flex gap-1 items-center select-none">${escapeHtml(words.copy)}</button></div></div>` +
      `<div class="relative z-0 flex max-w-full"><div id="code-block-viewer" dir="ltr" class="q9tKkq_viewer cm-editor"><div class="cm-scroller">` +
      `<div class="cm-content q9tKkq_readonly"${lang}>${body}</div></div></div></div></div></div></pre>`
    );
  };
}

/** A CodeMirror block's own Copy button copies that block's code (never the whole answer). */
export function copyCodeBlocks(container: HTMLElement): void {
  container.addEventListener('click', (event) => {
    const button = (event.target as Element).closest('pre button');
    const content = button?.closest('pre')?.querySelector(simSelector('.cm-content'));
    if (!content) return;
    const code = Array.from(content.querySelectorAll(simSelector('.cm-line')), (line) => line.textContent ?? '').join('\n');
    void navigator.clipboard.writeText(`${code}\n`);
  });
}

const CANVAS_CODE = ['def canvas_draft():', '    """Kept in the Canvas beside the chat."""', '    return "draft"'];

/**
 * The Canvas side panel (C1: "`div[contenteditable=true]` matches a CodeMirror editor,
 * not the composer", placeholder "Edit code"): an editable `.cm-content` textbox placed
 * before everything else on the page, so the first contenteditable or textbox in document
 * order is the user's code. Typing there would destroy it.
 */
let canvasOpen = false;

export function openCanvas(root: HTMLElement, words: Pick<ChatGptWords, 'editCode' | 'copy'>): void {
  if (canvasOpen) return;
  canvasOpen = true;
  const content = el('div', {
    class: 'cm-content',
    contenteditable: 'true',
    role: 'textbox',
    'aria-multiline': 'true',
    'aria-placeholder': words.editCode,
    'data-language': 'python',
    spellcheck: 'false',
    translate: 'no',
  });
  for (const line of CANVAS_CODE) content.append(el('div', { class: 'cm-line' }, line));
  root.prepend(
    el(
      'section',
      { class: 'canvas', 'aria-label': 'Canvas' },
      el('header', { class: 'flex items-center justify-between' }, el('h2', { class: 'text-sm' }, 'canvas_draft.py'), el('button', { type: 'button', 'aria-label': words.copy }, '⧉')),
      el('div', { class: 'cm-editor' }, el('div', { class: 'cm-scroller' }, content)),
    ),
  );
}

/**
 * Moves a conversation that was just given its address (`/c/<id>`) into a project, as a
 * chat started from a project page is: `/g/g-p-<32 hex>-<slug>/c/<id>`.
 */
export function moveIntoProject(): void {
  const m = /^\/c\/([A-Za-z0-9-]+)$/.exec(location.pathname);
  if (!m) return;
  const hex = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  history.replaceState(null, '', `/g/g-p-${hex}-simulated-project/c/${m[1]}`);
}

/** The second answer of an A/B comparison differs from the first by a leading paragraph. */
export const SECOND_TAKE = 'Here is a second take.';

export interface Candidate {
  /** The whole response as the layout shows one (message, or DIL root). */
  element: HTMLElement;
  /** Where its rendered HTML goes. */
  body: HTMLElement;
}

/**
 * The A/B comparison (research: "Which response do you prefer?" blocks the composer until
 * someone picks, #71061157320). Invented markup, the words are the site's: a heading, two
 * columns "Response 1" / "Response 2" that stream side by side, and under each, once both
 * are done, "I prefer this response". Picking one keeps it as the turn's only answer, with
 * its Markdown; `gate` blocks sending while the chooser is open.
 */
export function abChooser(
  words: ChatGptWords,
  container: HTMLElement,
  candidate: () => Candidate,
  gate: (open: boolean) => void,
): { render(html: string): void; ready(markdown: string, keep: (chosen: Candidate, markdown: string) => void): void } {
  const heading = el('div', { class: 'ab-chooser' }, el('h3', { class: 'text-lg' }, words.chooser), el('p', { class: 'text-token-text-secondary' }, words.chooserNote));
  const candidates = [candidate(), candidate()] as const;
  const columns = candidates.map((c, i) => el('div', { class: 'ab-response flex flex-col' }, el('div', { class: 'text-token-text-secondary text-sm' }, words.response(i + 1)), c.element));
  const grid = el('div', { class: 'grid grid-cols-2 gap-4' }, ...columns);
  container.append(heading, grid);
  gate(true);
  return {
    render(html) {
      candidates[0].body.innerHTML = html;
      candidates[1].body.innerHTML = `<p>${SECOND_TAKE}</p>${html}`;
    },
    ready(markdown, keep) {
      const markdowns = [markdown, `${SECOND_TAKE}\n\n${markdown}`] as const;
      candidates.forEach((chosen, i) => {
        const pick = el('button', { type: 'button', class: 'btn btn-secondary' }, words.prefer);
        pick.addEventListener('click', () => {
          heading.remove();
          grid.replaceWith(chosen.element);
          gate(false);
          keep(chosen, markdowns[i]!);
        });
        columns[i]!.append(pick);
      });
    },
  };
}

/**
 * Where a turn's answer goes: one response, shown from the turn's start; or, when the
 * prompt asked for `[[sim:ab]]` and the answer starts streaming, the chooser with two in
 * its place. `finished` gets the Markdown of the answer the turn keeps.
 */
export function answerSlot(options: {
  words: ChatGptWords;
  container: HTMLElement;
  single: Candidate;
  candidate: () => Candidate;
  ab: boolean;
  gate: (open: boolean) => void;
  finished: (markdown: string) => void;
}): { render(html: string): void; finish(markdown: string): void } {
  const { words, container, single, candidate, ab, gate, finished } = options;
  let chooser: ReturnType<typeof abChooser> | null = null;
  return {
    render(html) {
      if (ab && !chooser) {
        single.element.remove();
        chooser = abChooser(words, container, candidate, gate);
      }
      if (chooser) chooser.render(html);
      else single.body.innerHTML = html;
    },
    finish(markdown) {
      if (chooser) chooser.ready(markdown, (_, kept) => finished(kept));
      else finished(markdown);
    },
  };
}

/**
 * Blocks sending while something stands in the way (the A/B chooser): the send button is
 * disabled and Enter does nothing; the prompt stays in the composer, as on the real site.
 * Registered before the engine's own listeners, so it sees Enter first.
 */
export function sendGate(composer: HTMLElement, send: HTMLButtonElement): { readonly closed: boolean; set(closed: boolean): void } {
  let closed = false;
  composer.addEventListener('keydown', (event) => {
    if (closed && event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  });
  return {
    get closed() {
      return closed;
    },
    set(value) {
      closed = value;
      send.disabled = value;
    },
  };
}

export const CHATGPT_STYLE = `
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.cm-editor{border:1px solid #ddd;border-radius:8px;font:13px ui-monospace,monospace}
.cm-content{white-space:pre;padding:6px}
pre .cm-content{border:0}
section.canvas{border:1px solid #bbb;border-radius:8px;padding:8px;margin-bottom:12px}
.grid-cols-2{display:grid;grid-template-columns:1fr 1fr;gap:16px}
.turn-action-controls{display:flex;gap:4px}
[data-user-message-bubble]{background:#f0f0f0;border-radius:16px;padding:8px 12px;margin-left:auto;max-width:70%}
aside[role=alert]{border:1px solid #e55;border-radius:8px;padding:8px;color:#b00}
[role=status]{color:#777;font-style:italic}
`;
