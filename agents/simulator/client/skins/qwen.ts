/**
 * Qwen's DOM contract (research/providers.md §6; research/providers-live-2026.md, Qwen,
 * with the 2026 adapters it cites):
 * - composer: a React-controlled plain `textarea.message-input-textarea` (`fill` works);
 * - `.chat-prompt-send-button` holding `button.send-button` (`.disabled` + `disabled` while
 *   empty) and `button.stop-button`. The idle send icon can show while the answer is still
 *   streaming (ops notes 2026-08-18), so neither is a completion signal;
 * - messages `.qwen-chat-message` (`-user`, `-assistant`, ids `qwen-chat-message-assistant-<id>`)
 *   in `#chat-message-container`; an answer is `.chat-response-message`
 *   (`#chat-response-message-<id>`) whose `.chat-response-message-right` holds a thinking
 *   status card, then `.response-message-content.phase-answer` (`.response-message-empty`
 *   until the first token), then the finished turn's `.response-message-footer` with the
 *   action-icon row `.qwen-chat-package-comp-new-action-control-icons`: copy
 *   (`…-container-copy`, copies the source Markdown), regenerate, download;
 * - code blocks in a Monaco editor (qwen-code.ts);
 * - layout `dual`, the A/B experiment: the assistant message also has
 *   `.qwen-chat-message-dual-message` and holds `.smulti-o-response-message-wrapper` with two
 *   `.response-message-box`es ("Response 1", "Response 2"), both streaming at once. Only when
 *   both are done does each get `button.smulti-make-better` ("I prefer this response") under
 *   "Which response do you prefer? Select one to continue."; until one is picked the chat
 *   does not go on (this page: Send stays disabled and Enter does nothing). Picking folds
 *   the pair into the chosen answer, as a plain single message;
 * - layout `chat-panel`, the page of 2026-05 (qwen-panel.ts): the same roles in deeper markup,
 *   the answer's actions without roles or labels;
 * - URLs `/c/<uuid>`, login `/auth?action=signin`.
 * Invented where the research is silent, and marked: the error and refusal notices, the
 * limit toast (an Ant Design message, the site is built on antd), the session-expired dialog.
 */
import { startApp } from '../app.js';
import { qwenAttach } from '../attach/qwen.js';
import { el, show } from '../dom.js';
import { escapeHtml, renderMarkdown } from '../markdown.js';
import { SECOND_RESPONSE_LEAD, secondResponse } from '../second-response.js';
import type { AssistantTurn, ComposerMode, Skin } from '../skin.js';
import { mountEditors, renderCode } from './qwen-code.js';
import { dressMarkdown, PANEL_STYLE, panelComposer, panelFooter, panelHeader, panelUserMessage } from './qwen-panel.js';
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
/** The icon sprite the code blocks' header actions use. */
const SPRITE =
  '<svg style="display:none" aria-hidden="true">' +
  '<symbol id="icon-line-copy-right" viewBox="0 0 16 16"><rect x="5" y="5" width="8" height="8" rx="1" fill="none" stroke="currentColor"/><path d="M3 11V3h8" fill="none" stroke="currentColor"/></symbol>' +
  '<symbol id="icon-line-download-02" viewBox="0 0 16 16"><path d="M8 2v8M5 7l3 3 3-3M3 13h10" fill="none" stroke="currentColor"/></symbol></svg>';

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
pre.qwen-markdown-code{padding:0;background:#f6f6f8;border-radius:8px;overflow:hidden}
.qwen-markdown-code-header{display:flex;justify-content:space-between;padding:4px 10px;font:12px system-ui;color:#666}
.qwen-markdown-code-header-actions{display:flex;gap:8px}
.qwen-markdown-code-header-action-item{cursor:pointer}
.qwen-markdown-code-body{position:relative;font:13px/19px monospace}
.view-line{position:absolute;width:100%;white-space:pre}
.line-numbers{color:#aaa;text-align:right}
.qwen-chat-message-dual-message .smulti-o-response-message-wrapper{display:flex;gap:12px}
.response-message-box{flex:1;min-width:0;border:1px solid #e3e3ea;border-radius:8px;padding:8px}
.response-message-box-header{font-size:12px;color:#8b8b8b}
.smulti-o-response-message-tip{font-size:13px;color:#615ced;margin:6px 0}
`;

const qwen: Skin = {
  attach: qwenAttach,
  renderCode,
  linkAttributes: { class: 'qwen-markdown-link', target: '_blank', rel: 'noreferrer' }, // real page 2026-05
  mount(root) {
    document.head.append(el('style', {}, STYLE + PANEL_STYLE));
    const boot = window.__SIM_BOOT;
    const dual = boot.layout === 'dual';
    const panel = boot.layout === 'chat-panel';
    /** Answers from the conversation's history come first; they were settled long ago. */
    let historyLeft = boot.history.length;
    /** While an A/B pair waits for a pick, the chat does not go on. */
    let choosing = false;
    let mode: ComposerMode = 'empty';

    const header = panel
      ? panelHeader('Qwen3-Max')
      : el(
          'div',
          { id: 'qwen-chat-header-left' },
          el('div', { class: 'ant-dropdown-trigger', role: 'button', tabindex: '0' }, el('span', { class: 'model-selector-text' }, 'Qwen3-Max')),
        );
    const messages = el('div', { id: 'chat-message-container', ...(panel ? { class: 'chat-container chat-container-bottom' } : {}) });
    const textarea = el('textarea', {
      id: 'chat-input',
      class: 'message-input-textarea',
      placeholder: 'How can I help you today?',
      rows: '2',
    }) as HTMLTextAreaElement;
    // Registered before the engine's Enter handler, so a blocked Enter never reaches it.
    textarea.addEventListener('keydown', (event) => {
      if (choosing && event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        event.stopImmediatePropagation();
      }
    });
    const composer = reactTextarea(textarea);
    const send = el('button', { type: 'button', class: 'send-button disabled', disabled: '' });
    send.innerHTML = ICONS.send;
    const stop = el('button', { type: 'button', class: 'stop-button' });
    stop.innerHTML = ICONS.stop;
    const sendSlot = el('div', { class: 'chat-prompt-send-button' }, send, stop);
    const input = panel
      ? panelComposer(textarea, sendSlot)
      : el(
          'div',
          { class: 'chat-layout-input-container' },
          el('div', { class: 'message-input-wrapper' }, el('div', { class: 'message-input-container' }, textarea, el('div', { class: 'message-input-right-button' }, sendSlot))),
        );
    const toasts = el('div', {});
    const sprite = el('div', {});
    sprite.innerHTML = SPRITE;
    const scroller = el('div', { class: 'chat-messages', id: 'chat-messages-scroll-container' }, messages);
    root.append(
      panel
        ? el(
            'div',
            { class: 'layout-main-chat-panel' },
            sprite,
            header,
            el('main', { class: 'main-content' }, el('div', { class: 'chat-layout chat-desktop' }, el('div', { class: 'chat-content', id: 'dropzone-container' }, el('div', { class: 'chat-left' }, scroller, input)))),
            toasts,
          )
        : el('div', { id: 'root' }, sprite, header, el('div', { class: 'chat-content', id: 'dropzone-container' }, el('div', { class: 'chat-messages-container' }, scroller), input), toasts),
    );

    const setMode = (next: ComposerMode) => {
      mode = next;
      // While streaming the slot holds stop; in a pause it already shows the idle send
      // icon (the trap the research warns about).
      const ready = mode === 'ready' && !choosing;
      send.className = `send-button${ready ? '' : ' disabled'}`;
      send.toggleAttribute('disabled', !ready);
      show(send, mode !== 'generating');
      show(stop, mode === 'generating');
    };

    const action = (name: keyof typeof ICONS, label: string) => {
      const b = el('div', { class: `${ACTION}-container-${name}`, role: 'button', tabindex: '0', 'aria-label': label });
      b.innerHTML = ICONS[name];
      return b;
    };

    /** One answer: its `.chat-response-message` and what the engine does to it. */
    const response = () => {
      const id = crypto.randomUUID();
      const thinkingTitle = el('span', { class: 'qwen-chat-thinking-status-card-title-text' }, 'Thinking…');
      const thinking = el(
        'div',
        { class: 'qwen-chat-thinking-tool-status-card-wraper' },
        el('div', { class: 'qwen-chat-thinking-status-card' }, el('div', { class: 'qwen-chat-thinking-status-card-title' }, thinkingTitle)),
      );
      const empty = el('div', { class: 'response-message-empty' }, '…');
      const markdown = el('div', { class: panel ? 'qwen-markdown qwen-markdown-loose' : 'qwen-markdown' });
      const content = panel
        ? el('div', { class: 'response-message-content t2t phase-answer' }, el('div', { class: 'custom-qwen-markdown' }, markdown))
        : el('div', { class: 'response-message-content phase-answer' }, markdown);
      // The 2026-05 page holds the card and the content in an unnamed box, and no left column.
      const right = panel ? el('div', { class: 'chat-response-message-right' }, el('div', {}, thinking, empty)) : el('div', { class: 'chat-response-message-right' }, thinking, empty);
      const element = el('div', { class: 'chat-response-message', id: `chat-response-message-${id}` }, ...(panel ? [] : [el('div', { class: 'chat-response-message-left' })]), right);
      const showContent = () => {
        if (!empty.isConnected) return;
        empty.replaceWith(content);
        thinkingTitle.textContent = panel ? 'Thought completed' : 'Thinking completed';
      };
      const footer = (md: string) => {
        const copyMarkdown = () => void navigator.clipboard.writeText(md);
        if (panel) return right.append(...panelFooter(copyMarkdown));
        const copy = action('copy', 'Copy');
        copy.addEventListener('click', copyMarkdown);
        right.append(
          el(
            'div',
            { class: 'response-message-footer' },
            el('div', { class: `${ACTION}-icons` }, copy, action('regenerate', 'Regenerate'), action('download', 'Download')),
          ),
        );
      };
      const turn: AssistantTurn = {
        render(html) {
          showContent();
          markdown.innerHTML = html;
          mountEditors(markdown, panel);
          if (panel) return dressMarkdown(markdown);
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
          right.append(
            el('div', { class: 'response-message-security-warning', role: 'note' }, 'Content Security Warning: the content may be inappropriate.'),
          );
          footer(text);
        },
        stopped() {},
      };
      return { element, turn };
    };

    /**
     * The A/B pair, made from the message's single answer at its first token: both stream
     * together; once both are done the chooser shows and holds the chat until a pick.
     */
    const pair = (message: HTMLElement, first: ReturnType<typeof response>) => {
      const second = response();
      const box = (n: number, answer: HTMLElement) =>
        el('div', { class: 'response-message-box' }, el('div', { class: 'response-message-box-header' }, `Response ${n}`), answer);
      const boxes = [box(1, first.element), box(2, second.element)];
      const wrapper = el('div', { class: 'smulti-o-response-message-wrapper' }, ...boxes);
      message.classList.add('qwen-chat-message-dual-message');
      message.append(wrapper);
      const lead = renderMarkdown(SECOND_RESPONSE_LEAD);
      const fold = (chosen: HTMLElement) => {
        message.classList.remove('qwen-chat-message-dual-message');
        message.replaceChildren(chosen);
      };
      const ask = () => {
        choosing = true;
        setMode(mode);
        const tip = el('div', { class: 'smulti-o-response-message-tip' }, 'Which response do you prefer? Select one to continue.');
        message.insertBefore(tip, wrapper);
        [first, second].forEach((answer, i) => {
          const prefer = el('button', { type: 'button', class: 'smulti-make-better' }, 'I prefer this response');
          prefer.addEventListener('click', () => {
            fold(answer.element);
            choosing = false;
            setMode(mode);
            void fetch('/__sim/prefer', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ conversationId: location.pathname.split('/').pop(), choice: i + 1 }),
            });
          });
          boxes[i]!.append(prefer);
        });
      };
      const turn: AssistantTurn = {
        render(html) {
          first.turn.render(html);
          second.turn.render(lead + html);
        },
        finish(md) {
          first.turn.finish(md);
          second.turn.finish(secondResponse(md));
          ask();
        },
        error: () => first.turn.error(),
        refuse: (text) => first.turn.refuse(text),
        // Stopped mid-answer: nothing to choose between; the first answer stays.
        stopped: () => fold(first.element),
      };
      return turn;
    };

    // The mode select holds the attach trigger and the file input (attach/qwen.ts); the
    // chat-panel page has it, the others get the same input area.
    let modeSelect = input.querySelector<HTMLElement>('.mode-select');
    if (!modeSelect) {
      modeSelect = el('div', { class: 'mode-select' });
      textarea.before(el('div', { class: 'message-input-container-area' }, modeSelect));
    }
    return {
      fileSlots: { modeSelect, dropZone: root.querySelector<HTMLElement>('#dropzone-container')! },
      composer,
      sendButton: send,
      stopButton: stop,
      setMode,
      addUserTurn(text) {
        if (panel) return void messages.append(panelUserMessage(text));
        messages.append(
          el(
            'div',
            { class: 'qwen-chat-message qwen-chat-message-user', id: `qwen-chat-message-user-${crypto.randomUUID()}` },
            el(
              'div',
              { class: 'chat-user-message-container' },
              el(
                'div',
                { class: 'chat-user-message-wrapper' },
                el('div', { class: 'chat-user-message' }, el('div', { class: 'user-message-content', style: 'white-space:pre-wrap' }, text)),
              ),
            ),
          ),
        );
      },
      addAssistantTurn() {
        const single = response();
        const message = el(
          'div',
          { class: 'qwen-chat-message qwen-chat-message-assistant', id: `qwen-chat-message-assistant-${crypto.randomUUID()}` },
          single.element,
        );
        messages.append(message);
        const settled = historyLeft-- > 0;
        if (!dual || settled) return single.turn;
        // Only answers come in pairs: an error or a refusal stays a single message.
        let turn: AssistantTurn | null = null;
        return {
          render(html) {
            turn ??= pair(message, single);
            turn.render(html);
          },
          finish: (md) => (turn ?? single.turn).finish(md),
          error: () => (turn ?? single.turn).error(),
          refuse: (text) => (turn ?? single.turn).refuse(text),
          stopped: () => (turn ?? single.turn).stopped(),
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
