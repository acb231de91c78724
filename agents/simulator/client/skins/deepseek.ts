/**
 * DeepSeek's DOM contract (research/providers.md §5), as far as the research reaches:
 * - composer: a React-controlled plain `textarea.ds-scroll-area` (`#chat-input` in `classic`,
 *   `name="search"` in the 2026 layouts, as on the 2026-05 real page), placeholder
 *   "Message DeepSeek"; Playwright's `fill` is what gets text into React's state;
 * - one send/stop slot, `div[role="button"].ds-button--primary`, with no aria labels:
 *   disabled adds `.ds-button--disabled` (+ `aria-disabled="true"`); while generating the
 *   same slot shows a stop square (`svg rect`). It sits right after the composer's
 *   `input[type="file"]` (the hash-free anchor CodeWebChat and others lean on);
 * - turns: one block wrapper per message holding a `div.ds-message`; the assistant's
 *   holds `.ds-markdown` (the answer also carries `.ds-assistant-message-main-content`)
 *   and, with DeepThink on, reasoning in `.ds-think-content .ds-markdown` before it;
 * - the finished turn: an actions row as the message's next sibling,
 *   `div.ds-message + div > div.ds-flex > .ds-icon-button[role="button"]`, copy first;
 * - code blocks: `div.md-code-block` with `.md-code-block-banner-wrap` › `.md-code-block-banner`
 *   holding the language and Copy/Download buttons, then a `<pre>` with no `<code>`;
 * - the busy error is the answer text itself, "Server busy, please try again later.";
 * - URLs: `/a/chat/s/<uuid>`, login `/sign_in`.
 * The real site's layout classes are build hashes (`_7436101`, `bf38813a`); they are left
 * bare here so nothing can come to lean on them. Markup the research does not describe
 * (the refusal notice, the limit toast, the in-app sign-in view) is invented and marked.
 *
 * The 2026 site (research/providers-live-2026.md, "DeepSeek") differs, in three layouts:
 * - `virtual-list` (default: what the 2026-10 adapters and the anchor contract of 2026-10-04
 *   read as the established page): the transcript is a virtual list of rows
 *   `[data-virtual-list-item-key]` in `.ds-virtual-list-visible-items`, only the newest
 *   mounted (deepseek-rows.ts), still holding `div.ds-message`;
 * - `virtual-list-hashed` (the variant seen on 2026-10-04, rolling out): the same list with
 *   unkeyed rows and no `.ds-message` / `.ds-assistant-message-main-content`, hashed classes only;
 * - `classic`: the page above, before the virtual list.
 * In both virtual-list layouts the send and stop glyphs are paths (`d^="M8.3125"` /
 * `d^="M2 4.88"`) instead of an arrow and a `rect`, the slot shows `.ds-loading` between a
 * send and the first words, and the finished answer's toolbar has a labelled
 * `[role="button"][aria-label="Read aloud"]` (observed). Its other labels ("Copy",
 * "Regenerate", …) are inferred from it, not observed.
 */
import { startApp } from '../app.js';
import { deepseekAttach } from '../attach/deepseek.js';
import { simSelector } from '../drift-lookups.js';
import { el } from '../dom.js';
import { escapeHtml, type CodeBlock } from '../markdown.js';
import type { ComposerMode, Skin } from '../skin.js';
import { deepseekRows } from './deepseek-rows.js';
import { reactTextarea } from './react-textarea.js';

const BUSY = 'Server busy, please try again later.';
const REASONING = 'The user sent a prompt. I will restate it and add a short code sample, a list and a table.';

const svg = (body: string, paint = 'fill="none" stroke="currentColor" stroke-width="1.4"') =>
  `<svg width="16" height="16" viewBox="0 0 16 16" ${paint} aria-hidden="true">${body}</svg>`;
const fill = 'fill="currentColor"';
/** The slot's glyphs: before 2026 an arrow and a square; in 2026 paths the adapters tell apart by their start. */
const GLYPHS = {
  classic: {
    send: svg('<path d="M8 2l5 6H9.6v6H6.4V8H3z"/>', fill),
    stop: svg('<rect x="3" y="3" width="10" height="10" rx="2"/>', fill),
  },
  '2026': {
    send: svg('<path d="M8.3125 1.5L14 7.2H10.1V14.5H6.5V7.2H2.6Z"/>', fill),
    stop: svg('<path d="M2 4.88C2 3.29 3.29 2 4.88 2h6.24C12.71 2 14 3.29 14 4.88v6.24c0 1.59-1.29 2.88-2.88 2.88H4.88C3.29 14 2 12.71 2 11.12z"/>', fill),
  },
};
const LOADING = `<div class="ds-loading">${svg('<circle cx="8" cy="8" r="6" stroke-dasharray="28 10"/>')}</div>`;
const ICONS = {
  attach: svg('<path d="M10.5 3.5l-5 5a1.5 1.5 0 002 2l5-5a3 3 0 00-4-4l-5 5"/>'),
  copy: svg('<rect x="5" y="5" width="8" height="8" rx="1"/><path d="M3 11V3h8"/>'),
  regenerate: svg('<path d="M13 8a5 5 0 11-1.5-3.5M13 2v3h-3"/>'),
  readAloud: svg('<path d="M2 6h3l4-3v10l-4-3H2zM11 5a4 4 0 010 6"/>'),
  like: svg('<path d="M2 7h3v7H2zM6 7l3-5c1 0 2 1 1.5 2.5L10 6h3.5l-1 8H6z"/>'),
  dislike: svg('<path d="M2 2h3v7H2zM6 9l3 5c1 0 2-1 1.5-2.5L10 10h3.5l-1-8H6z"/>'),
  share: svg('<path d="M11 2l3 3-3 3M14 5H7a4 4 0 00-4 4v4"/>'),
};
/** The finished answer's toolbar, copy first; the 2026 one adds Read aloud and labels. */
const TOOLBARS: Record<'classic' | '2026', [keyof typeof ICONS, string][]> = {
  classic: [['copy', ''], ['regenerate', ''], ['like', ''], ['dislike', ''], ['share', '']],
  '2026': [['copy', 'Copy'], ['regenerate', 'Regenerate'], ['readAloud', 'Read aloud'], ['like', 'Like'], ['dislike', 'Dislike'], ['share', 'Share']],
};

const STYLE = `
.ds-theme{display:flex;flex-direction:column;gap:12px}
.ds-message{padding:8px 12px;border-radius:12px}
.ds-think-content{color:#8b8b8b;border-left:2px solid #e5e5e5;padding-left:12px;margin:6px 0}
.ds-flex{display:flex;gap:6px;margin-top:4px}
.ds-icon-button,.ds-toggle-button{display:inline-flex;align-items:center;justify-content:center;min-width:28px;height:28px;cursor:pointer;border-radius:8px}
.ds-button--primary{display:inline-flex;align-items:center;justify-content:center;width:32px;height:32px;border-radius:50%;background:#4d6bfe;color:#fff;cursor:pointer}
.ds-button--disabled{background:#d6dee8;cursor:not-allowed}
.md-code-block{border:1px solid #e5e5e5;border-radius:8px;margin:8px 0}
.md-code-block-banner{display:flex;justify-content:space-between;padding:4px 8px;font-size:12px}
.md-code-block pre{margin:0}
textarea.ds-scroll-area{width:100%;min-height:48px;resize:none}
`;

/** DeepSeek's code blocks: the language in a banner beside a bare `<pre>` (no `<code>`). */
function renderCode({ language, code }: CodeBlock): string {
  return (
    '<div class="md-code-block md-code-block-light">' +
    '<div class="md-code-block-banner-wrap"><div class="md-code-block-banner md-code-block-banner-lite">' +
    `<div><span class="md-code-block-infostring">${escapeHtml(language)}</span></div>` +
    '<div class="md-code-block-action">' +
    '<button type="button" class="ds-atom-button ds-text-button" data-action="copy">Copy</button>' +
    '<button type="button" class="ds-atom-button ds-text-button" data-action="download">Download</button>' +
    '</div></div></div>' +
    `<pre>${highlight(language, code)}</pre></div>`
  );
}

/** A token or two wrapped in spans, as the site's highlighter does; the text is unchanged. */
function highlight(language: string, code: string): string {
  const escaped = escapeHtml(code);
  if (language !== 'python') return escaped;
  return escaped.replace(/\b(def|return)\b/g, '<span class="token keyword">$1</span>');
}

const deepseek: Skin = {
  attach: deepseekAttach,
  renderCode,
  // An answer's link, as the real page of 2026-05 has it.
  linkAttributes: { target: '_blank', rel: 'noreferrer' },
  mount(root) {
    let mode: ComposerMode = 'empty';
    /** Between a send and the answer's first words (2026 layouts only). */
    let loading = false;
    document.head.append(el('style', {}, STYLE));
    const { layout } = window.__SIM_BOOT;
    const generation = layout === 'classic' ? 'classic' : '2026';

    const rows = deepseekRows(layout);
    const scroll = el('div', { class: 'ds-scroll-area' }, rows.element);
    const toasts = el('div', {});
    // The 2026-05 real page's textarea has no id (../shared/real-pages/deepseek): `name="search"`.
    const named: Record<string, string> = generation === 'classic' ? { id: 'chat-input' } : { name: 'search' };
    const textarea = el('textarea', { ...named, class: 'ds-scroll-area', placeholder: 'Message DeepSeek', rows: '2' }) as HTMLTextAreaElement;
    const composer = reactTextarea(textarea);
    const deepThink = el('div', { role: 'button', tabindex: '0', class: 'ds-toggle-button ds-toggle-button--selected' }, 'DeepThink');
    const search = el('div', { role: 'button', tabindex: '0', class: 'ds-toggle-button' }, 'Search');
    const attach = el('div', { role: 'button', tabindex: '0', class: 'ds-icon-button', 'aria-disabled': 'false' });
    attach.innerHTML = ICONS.attach;
    const fileInput = el('input', { type: 'file', multiple: '', style: 'display:none' });
    // The one slot that is send, then stop.
    const slot = el('div', { role: 'button', tabindex: '0' });
    const tools = el('div', { style: 'display:flex;align-items:center;gap:8px' }, deepThink, search, el('div', { style: 'flex:1' }), attach, fileInput, slot);
    const app = el('div', { class: 'ds-theme' }, scroll, toasts, el('div', {}, textarea, tools));
    root.append(el('div', { id: 'root' }, app));

    const paint = () => {
      const enabled = mode === 'ready' || mode === 'generating';
      slot.className = `ds-button ds-button--primary ds-button--filled ds-button--circle ds-button--m${enabled ? '' : ' ds-button--disabled'}`;
      slot.setAttribute('aria-disabled', String(!enabled));
      // During a reasoning pause the slot looks idle: the trap for "no stop = done" checks.
      const glyphs = GLYPHS[generation];
      slot.innerHTML = mode !== 'generating' ? glyphs.send : loading ? LOADING : glyphs.stop;
    };

    // The engine listens to a send and a stop control; here both are this one slot, so
    // it forwards a press to whichever it currently is.
    const sendButton = el('div', {});
    const stopButton = el('div', {});
    slot.addEventListener('click', () => {
      if (mode === 'generating') stopButton.click();
      else if (mode === 'ready') sendButton.click();
    });

    // The code banners' own buttons: Copy puts the block's code on the clipboard.
    rows.element.addEventListener('click', (event) => {
      const button = (event.target as Element).closest(simSelector('.md-code-block-banner [data-action="copy"]'));
      const pre = button?.closest(simSelector('.md-code-block'))?.querySelector('pre');
      if (pre) void navigator.clipboard.writeText(pre.textContent ?? '');
    });

    const iconButton = (name: keyof typeof ICONS, label: string) => {
      const b = el('div', { role: 'button', tabindex: '0', class: 'ds-icon-button', 'aria-disabled': 'false', ...(label ? { 'aria-label': label } : {}) });
      b.innerHTML = ICONS[name];
      return b;
    };

    return {
      fileSlots: { input: fileInput as HTMLInputElement, button: attach, send: slot },
      composer,
      sendButton,
      stopButton,
      setMode(next) {
        // A send starts loading; the end of a reasoning pause does not.
        if (next === 'generating' && mode !== 'paused') loading = generation === '2026';
        mode = next;
        paint();
      },
      addUserTurn(text) {
        rows.user(text);
      },
      addAssistantTurn() {
        // DeepThink is on: reasoning streams first, inside `.ds-think-content`.
        const thinkStatus = el('div', {}, 'Thinking…');
        const think = el('div', { class: 'ds-think-content' }, el('div', { class: 'ds-markdown' }, el('p', {}, REASONING)));
        const { row, message } = rows.assistant();
        message.append(thinkStatus, think);
        let answer: HTMLElement | null = null;
        const answerElement = () => {
          if (loading) {
            loading = false;
            paint();
          }
          if (!answer) {
            answer = el('div', { class: rows.answerClass });
            message.append(answer);
            thinkStatus.textContent = 'Thought for 1 second';
          }
          return answer;
        };
        /** The actions row under a finished message: copy first. */
        const actions = (markdown: string) => {
          const [copy, ...others] = TOOLBARS[generation].map(([icon, label]) => iconButton(icon, label));
          copy!.addEventListener('click', () => void navigator.clipboard.writeText(markdown));
          row.append(el('div', {}, el('div', { class: 'ds-flex' }, copy!, ...others)));
        };
        return {
          render(html) {
            answerElement().innerHTML = html;
          },
          finish(markdown) {
            actions(markdown);
          },
          error() {
            // No separate error card: the busy message is the answer, then the usual row.
            thinkStatus.remove();
            think.remove();
            answerElement().innerHTML = `<p>${BUSY}</p>`;
            actions(BUSY);
          },
          refuse(text) {
            answerElement().innerHTML = `<p>${escapeHtml(text)}</p>`;
            // Invented (the research does not describe DeepSeek refusals): a notice in the
            // message, beside the answer body, never words inside it.
            message.append(el('div', { class: 'ds-refusal-notice', role: 'note' }, 'This response was withheld under the content policy.'));
            actions(text);
          },
          stopped() {},
        };
      },
      showLoginWall() {
        // The SPA routes to `/sign_in` in place. The view is invented beyond the research's
        // "SMS-code form by default, password login is a tab".
        history.replaceState(null, '', '/sign_in');
        root.replaceChildren(
          el(
            'div',
            { id: 'root' },
            el('h1', {}, 'Log in'),
            el('div', { role: 'tablist' }, el('div', { role: 'tab', 'aria-selected': 'true' }, 'SMS login'), el('div', { role: 'tab', 'aria-selected': 'false' }, 'Password login')),
            el('input', { type: 'tel', placeholder: 'Phone number', autocomplete: 'tel' }),
            el('input', { type: 'text', placeholder: 'Code', inputmode: 'numeric' }),
            el('div', { role: 'button', class: 'ds-button ds-button--secondary' }, 'Send code'),
            el('a', { href: '/sign_up' }, 'Sign up'),
          ),
        );
      },
      showLimitBanner(text) {
        // Invented (DeepSeek's limit wording and markup are not in the research): a toast.
        toasts.replaceChildren(el('div', { class: 'ds-toast ds-toast--warning', role: 'alert' }, text));
      },
    };
  },
};

startApp(deepseek);
