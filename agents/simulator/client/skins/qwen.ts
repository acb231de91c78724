/**
 * Qwen's DOM contract (research/providers.md §6; codey's profile "verified against the live
 * page", plus 2026 field notes where the research is thin):
 * - composer: a React-controlled plain `textarea.message-input-textarea` (`fill` works);
 * - `button.send-button` (`.disabled` + `disabled` while empty) and `button.stop-button`
 *   in the composer's right-hand slot. The idle send icon can show while the answer is
 *   still streaming (ops notes 2026-08-18), so neither is a completion signal;
 * - assistant turns `.chat-response-message` (inside `.qwen-chat-message-assistant`),
 *   answer in `.response-message-content.phase-answer`, `.response-message-empty` until the
 *   first token, a thinking status card before the answer;
 * - the finished turn: `.response-message-footer` with the action-icon row
 *   `.qwen-chat-package-comp-new-action-control-icons`: copy
 *   (`…-container-copy`, copies the source Markdown), regenerate, download;
 * - URLs `/c/<uuid>`, login `/auth?action=signin`.
 * Invented where the research is silent, and marked: the error and refusal notices, the
 * limit toast (an Ant Design message, the site is built on antd), the session-expired dialog.
 */
import { startApp } from '../app.js';
import { el, show } from '../dom.js';
import { escapeHtml, type CodeBlock } from '../markdown.js';
import type { Skin } from '../skin.js';
import { reactTextarea } from './react-textarea.js';

const ACTION = 'qwen-chat-package-comp-new-action-control';

const svg = (body: string, paint = 'fill="none" stroke="currentColor" stroke-width="1.4"') =>
  `<svg width="16" height="16" viewBox="0 0 16 16" ${paint} aria-hidden="true">${body}</svg>`;
const ICONS = {
  send: svg('<path d="M8 2l5 6H9.6v6H6.4V8H3z"/>', 'fill="currentColor"'),
  stop: svg('<rect x="3" y="3" width="10" height="10" rx="2"/>', 'fill="currentColor"'),
  copy: svg('<rect x="5" y="5" width="8" height="8" rx="1"/><path d="M3 11V3h8"/>'),
  regenerate: svg('<path d="M13 8a5 5 0 11-1.5-3.5M13 2v3h-3"/>'),
  download: svg('<path d="M8 2v8M5 7l3 3 3-3M3 13h10"/>'),
};

const STYLE = `
.qwen-chat-message{margin:12px 0}
.qwen-chat-thinking-status-card{color:#8b8b8b;font-size:13px;margin-bottom:6px}
.response-message-footer{margin-top:4px}
.${ACTION}-icons{display:flex;gap:6px}
.${ACTION}-icons [role="button"]{display:inline-flex;width:28px;height:28px;align-items:center;justify-content:center;cursor:pointer}
.message-input-container{display:flex;gap:8px;align-items:flex-end}
.message-input-textarea{flex:1;min-height:48px;resize:none}
.send-button,.stop-button{width:32px;height:32px;border-radius:50%;border:0;background:#615ced;color:#fff;cursor:pointer}
.send-button.disabled{background:#d6d6e8;cursor:not-allowed}
.ant-message{position:fixed;top:8px;left:0;right:0;text-align:center}
`;

/** Qwen's markdown code blocks: `pre.qwen-markdown-code` with the language on `<code>`. */
function renderCode({ language, code }: CodeBlock): string {
  const lang = escapeHtml(language);
  return `<pre class="qwen-markdown-code"><code class="language-${lang}">${escapeHtml(code)}</code></pre>`;
}

const qwen: Skin = {
  renderCode,
  mount(root) {
    document.head.append(el('style', {}, STYLE));
    const header = el(
      'div',
      { id: 'qwen-chat-header-left' },
      el('div', { class: 'ant-dropdown-trigger', role: 'button', tabindex: '0' }, el('span', { class: 'model-selector-text' }, 'Qwen3-Max')),
    );
    const messages = el('div', { id: 'chat-message-container' });
    const textarea = el('textarea', {
      id: 'chat-input',
      class: 'message-input-textarea',
      placeholder: 'How can I help you today?',
      rows: '2',
    }) as HTMLTextAreaElement;
    const composer = reactTextarea(textarea);
    const send = el('button', { type: 'button', class: 'send-button disabled', disabled: '' });
    send.innerHTML = ICONS.send;
    const stop = el('button', { type: 'button', class: 'stop-button' });
    stop.innerHTML = ICONS.stop;
    const input = el(
      'div',
      { class: 'chat-layout-input-container' },
      el('div', { class: 'message-input-container' }, textarea, el('div', { class: 'message-input-right-button' }, send, stop)),
    );
    const toasts = el('div', {});
    root.append(el('div', { id: 'root' }, header, messages, input, toasts));

    const action = (name: keyof typeof ICONS, label: string) => {
      const b = el('div', { class: `${ACTION}-container-${name}`, role: 'button', tabindex: '0', 'aria-label': label });
      b.innerHTML = ICONS[name];
      return b;
    };

    return {
      composer,
      sendButton: send,
      stopButton: stop,
      setMode(mode) {
        // While streaming the slot holds stop; in a pause it already shows the idle send
        // icon (the trap the research warns about).
        const ready = mode === 'ready';
        send.className = `send-button${ready ? '' : ' disabled'}`;
        send.toggleAttribute('disabled', !ready);
        show(send, mode !== 'generating');
        show(stop, mode === 'generating');
      },
      addUserTurn(text) {
        messages.append(
          el(
            'div',
            { class: 'qwen-chat-message qwen-chat-message-user' },
            el('div', { class: 'chat-user-message' }, el('div', { class: 'user-message-content', style: 'white-space:pre-wrap' }, text)),
          ),
        );
      },
      addAssistantTurn() {
        const thinkingTitle = el('span', { class: 'qwen-chat-thinking-status-card-title-text' }, 'Thinking…');
        const thinking = el(
          'div',
          { class: 'qwen-chat-thinking-tool-status-card-wraper' },
          el('div', { class: 'qwen-chat-thinking-status-card' }, el('div', { class: 'qwen-chat-thinking-status-card-title' }, thinkingTitle)),
        );
        const empty = el('div', { class: 'response-message-empty' }, '…');
        const markdown = el('div', { class: 'qwen-markdown' });
        const content = el('div', { class: 'response-message-content phase-answer' }, markdown);
        const response = el('div', { class: 'chat-response-message' }, thinking, empty);
        messages.append(el('div', { class: 'qwen-chat-message qwen-chat-message-assistant' }, response));
        const showContent = () => {
          if (!empty.isConnected) return;
          empty.replaceWith(content);
          thinkingTitle.textContent = 'Thinking completed';
        };
        const footer = (markdown: string) => {
          const copy = action('copy', 'Copy');
          copy.addEventListener('click', () => void navigator.clipboard.writeText(markdown));
          response.append(
            el(
              'div',
              { class: 'response-message-footer' },
              el('div', { class: `${ACTION}-icons` }, copy, action('regenerate', 'Regenerate'), action('download', 'Download')),
            ),
          );
        };
        return {
          render(html) {
            showContent();
            markdown.innerHTML = html;
            // Tables sit in Qwen's table wrapper.
            for (const table of Array.from(markdown.querySelectorAll(':scope > table'))) {
              table.classList.add('qwen-markdown-table');
              const wrapper = el('div', { class: 'qwen-markdown-table-wrapper' });
              table.replaceWith(wrapper);
              wrapper.append(table);
            }
          },
          finish(md) {
            footer(md);
          },
          error() {
            // Invented markup; the words follow Qwen's connection-error notice ("Oops! …
            // issue connecting", field notes 2026-08). No footer: the turn never finished.
            thinking.remove();
            empty.replaceWith(
              el('div', { class: 'response-message-error' }, 'Oops! There was an issue connecting to Qwen3-Max. Network error, please try again later.'),
            );
          },
          refuse(text) {
            showContent();
            markdown.innerHTML = `<p>${escapeHtml(text)}</p>`;
            // Invented: a content-security notice beside the answer, never inside it.
            response.append(
              el('div', { class: 'response-message-security-warning', role: 'note' }, 'Content Security Warning: the content may be inappropriate.'),
            );
            footer(text);
          },
          stopped() {},
        };
      },
      showLoginWall() {
        // Invented: the session expired; Qwen falls back to guest mode behind a dialog
        // that links to its login page.
        root.append(
          el(
            'div',
            { class: 'ant-modal-root' },
            el(
              'div',
              { class: 'ant-modal', role: 'dialog' },
              el('div', { class: 'ant-modal-content' }, el('p', {}, 'Your session has expired. Please log in again.'), el('a', { href: '/auth?action=signin' }, 'Log in'), ' ', el('a', { href: '/auth?action=signup' }, 'Sign up')),
            ),
          ),
        );
      },
      showLimitBanner(text) {
        // Invented: an Ant Design message toast.
        toasts.replaceChildren(
          el(
            'div',
            { class: 'ant-message' },
            el(
              'div',
              { class: 'ant-message-notice' },
              el('div', { class: 'ant-message-notice-content' }, el('div', { class: 'ant-message-custom-content ant-message-warning' }, el('span', {}, text))),
            ),
          ),
        );
      },
    };
  },
};

startApp(qwen);
