/**
 * Gemini's DOM contract (research/providers.md §4). An Angular app: generated class names
 * and `_ngcontent-*` attributes churn, so what ChatBridge keys on here is what the research
 * says is stable on the real site — custom element names, `data-test-id` hooks, Material
 * icon names — and never the English labels, which the real site localizes.
 *
 * Observed on the real site, reproduced here:
 * - composer: `rich-textarea` (with `enterkeyhint="send"`) holding Quill's
 *   `div.ql-editor.textarea[contenteditable="true"][role="textbox"]`, inside
 *   `[data-test-id="textarea-wrapper"]` › `[data-test-id="textarea-inner"]`; Quill's second,
 *   hidden contenteditable `div.ql-clipboard` sits beside it and must never be picked;
 * - no send button until the composer has text: the microphone holds the slot; then
 *   `button.send-button[aria-label="Send message"][aria-disabled="false"]` inside
 *   `div[data-test-id="send-button-container"]`; while answering, a stop button with
 *   `mat-icon[fonticon="stop"]` and `aria-label="Stop response"` in the same slot;
 * - transcript: `#chat-history` › `infinite-scroller[data-test-id="chat-history-container"]`
 *   › one `.conversation-container` per exchange, wrapping `user-query` (lines as
 *   `.query-text p.query-text-line`) and `model-response` › `message-content` ›
 *   `.markdown.markdown-main-panel` with `aria-busy="true"` while it streams;
 * - the finished signal: the response's `.response-footer` gains `.complete` and the
 *   markdown's `aria-busy` turns "false"; `message-actions` › `div` › `div` holds the
 *   action buttons, among them `copy-button button` (copies the answer);
 * - `/app` becomes `/app/<hex id>` once answered (the engine); a lost session means a link
 *   to accounts.google.com (here the simulator's own `/signin` stands in for it).
 *
 * The labels follow the page language (`?hl=` or the browser's), English or Japanese (the
 * research saw `aria-label="プロンプトを送信"` on a Japanese UI), so a pack that leans on
 * English labels fails here the way it would for a Japanese user.
 *
 * The 2026 page (research/providers-live-2026.md, "Gemini"; live probes 2026-07-15 and
 * 2026-08-13): the editor is labelled "Enter a prompt for Gemini" and has `data-gramm="false"`,
 * the upload menu is "Upload & tools", the mode picker "Open mode picker, currently …".
 * And the site works logged out: without a session `/app` is an anonymous composer that
 * answers (unsaved), with a "Sign in" control and no account button (SimSiteConfig.anonymous).
 *
 * Two layouts, differing only in how the editor takes a paste:
 * - `classic` (default): the editor reads a paste event's `clipboardData`, as above;
 * - `quill-clipboard`: stock Quill 1, whose hidden `div.ql-clipboard` says that is what
 *   the page runs: a paste moves the focus to the catcher, lets the browser paste into it,
 *   and a moment later moves what arrived into the editor. A synthetic paste event pastes
 *   nothing, so text must come in by the browser's own insertion (`insertText`).
 *
 * Where the research is silent, the markup is invented, and says so below: the code-block
 * frame, the error card, the refusal notice, the limit banner, the Google account link.
 */
import { startApp } from '../app.js';
import { geminiAttach } from '../attach/gemini.js';
import { el, lineText } from '../dom.js';
import { escapeHtml, type CodeBlock } from '../markdown.js';
import type { Composer, ComposerMode, Skin } from '../skin.js';

const LABELS = {
  en: {
    prompt: 'Enter a prompt for Gemini',
    placeholder: 'Ask Gemini',
    send: 'Send message',
    stop: 'Stop response',
    mic: 'Microphone',
    upload: 'Upload & tools',
    modePicker: 'Open mode picker, currently 2.5 Flash',
    newChat: 'New chat',
    menu: 'Main menu',
    greeting: 'Hello there',
    copy: 'Copy',
    copyCode: 'Copy code',
    good: 'Good response',
    bad: 'Bad response',
    redo: 'Redo',
    more: 'Show more options',
    stopped: 'You stopped this response',
    error: 'Something went wrong. Please try again.',
    retry: 'Try again',
    blocked: "This response was blocked because it may go against Google's policies.",
    account: 'Google Account: Agent (agent@example.test)',
    signIn: 'Sign in',
    signedOut: 'You have been signed out. Sign in to continue.',
  },
  // Only `send` is attested (research/providers.md §1); the rest are plausible stand-ins.
  ja: {
    prompt: 'Gemini へのプロンプトを入力',
    placeholder: 'Gemini に相談',
    send: 'プロンプトを送信',
    stop: '回答を停止',
    mic: 'マイク',
    upload: 'アップロードとツール',
    modePicker: 'モード選択ツールを開く（現在: 2.5 Flash）',
    newChat: 'チャットを新規作成',
    menu: 'メインメニュー',
    greeting: 'こんにちは',
    copy: 'コピー',
    copyCode: 'コードをコピー',
    good: '良い回答',
    bad: '悪い回答',
    redo: 'やり直す',
    more: 'その他のオプション',
    stopped: 'この回答は停止されました',
    error: '問題が発生しました。もう一度お試しください。',
    retry: '再試行',
    blocked: 'Google のポリシーに違反する可能性があるため、この回答はブロックされました。',
    account: 'Google アカウント: Agent (agent@example.test)',
    signIn: 'ログイン',
    signedOut: 'ログアウトしました。続行するにはログインしてください。',
  },
};
type Labels = (typeof LABELS)['en'];

const language = new URLSearchParams(location.search).get('hl') ?? navigator.language;
const L: Labels = language.toLowerCase().startsWith('ja') ? LABELS.ja : LABELS.en;

// Quill's own stylesheet rules that matter here (quill.core.css): the editor keeps white
// space, the placeholder is drawn from `data-placeholder` while the editor is `ql-blank`,
// and the clipboard catcher sits far off screen — laid out, focusable, but unseen.
const STYLE = `
.ql-editor{white-space:pre-wrap;word-wrap:break-word;outline:none;min-height:40px;max-height:240px;overflow-y:auto;border:1px solid #888;padding:6px}
.ql-editor p{margin:0}
.ql-editor.ql-blank::before{content:attr(data-placeholder);color:#999;position:absolute;pointer-events:none}
.ql-clipboard{left:-10000px;height:1px;overflow-y:hidden;position:absolute;top:50%}
rich-textarea{display:block;position:relative}
.input-area{display:flex;gap:8px;align-items:flex-end}
[data-test-id="textarea-wrapper"]{flex:1}
mat-icon{font-style:normal}
mat-icon[fonticon="send"]::before{content:"➤"}
mat-icon[fonticon="stop"]::before{content:"■"}
mat-icon[fonticon="mic"]::before{content:"●"}
mat-icon[fonticon="content_copy"]::before{content:"❐"}
mat-icon[fonticon="thumb_up"]::before{content:"▲"}
mat-icon[fonticon="thumb_down"]::before{content:"▼"}
mat-icon[fonticon="refresh"]::before{content:"↻"}
mat-icon[fonticon="more_vert"]::before{content:"⋮"}
mat-icon[fonticon="add_2"]::before{content:"+"}
.conversation-container{margin:16px 0}
user-query{display:block;text-align:right}
.query-text{display:inline-block;background:#eef2f8;border-radius:16px;padding:8px 12px;text-align:left}
.query-text-line{margin:0;white-space:pre-wrap;min-height:1em}
model-response,message-content,code-block,message-actions{display:block}
.code-block-decoration{display:flex;justify-content:space-between;font-size:12px;color:#555;background:#e8eaed;padding:2px 8px}
.response-error,.blocked-response-notice{color:#b3261e;margin:8px 0}
.usage-limit-banner{background:#fce8e6;padding:8px 12px;margin:8px 0}
`;

const hex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');

/** An Angular Material icon button: the icon is a font ligature named by `fonticon`. */
function iconButton(icon: string, label: string, attrs: Record<string, string> = {}): HTMLElement {
  return el(
    'button',
    { type: 'button', class: 'mat-mdc-icon-button mat-mdc-button-base', 'aria-label': label, mattooltip: label, ...attrs },
    el('mat-icon', { role: 'img', fonticon: icon, 'data-mat-icon-name': icon, 'aria-hidden': 'true', class: 'mat-icon notranslate google-symbols' }),
  );
}

/**
 * A stand-in for Gemini's Quill editor: one `<p>` per line, an empty editor is `<p><br></p>`
 * marked `ql-blank`, and Enter sends (the engine). The browser's own editing (typing, IME,
 * `execCommand('insertText')`, Playwright's `fill`) lands in the editor directly. The
 * hidden `div.ql-clipboard` is Quill 1's paste catcher; stock Quill 1 ignores a paste
 * event's data and lets the browser paste into the catcher instead (`paste: 'catcher'`, the
 * `quill-clipboard` layout), but Gemini's composer, which also takes pasted images and
 * files, is modelled by default as reading the event's `clipboardData` (`paste: 'event'`;
 * unverified, see the note on `input` in agents/providers/gemini.ts). The pasted lines go
 * at the end of the text: the simulator does not track the caret.
 */
function quillComposer(editor: HTMLElement, catcher: HTMLElement, paste: 'event' | 'catcher'): Composer {
  const emptyLine = () => el('p', {}, el('br'));
  const line = (text: string) => (text ? el('p', {}, text) : emptyLine());
  const blank = () => editor.children.length === 1 && lineText(editor.firstElementChild!) === '';
  const normalize = () => {
    if (!editor.firstElementChild) editor.replaceChildren(emptyLine());
    editor.classList.toggle('ql-blank', blank());
  };
  const read = () => Array.from(editor.children, lineText).join('\n');

  // Registered before the engine's own `input` listener, so the engine sees a normalized editor.
  editor.addEventListener('input', normalize);
  const insert = (text: string) => {
    const pasted = text.replace(/\r\n/g, '\n');
    if (!pasted) return;
    const lines = (blank() ? '' : read()).concat(pasted).split('\n');
    editor.replaceChildren(...lines.map(line));
    editor.dispatchEvent(new Event('input', { bubbles: true }));
  };
  editor.addEventListener('paste', (event) => {
    if (paste === 'event') {
      event.preventDefault();
      return insert(event.clipboardData?.getData('text/plain') ?? '');
    }
    // Quill 1's onPaste: the browser's own paste lands in the focused catcher; a tick later
    // its text moves into the editor and the caret comes back to the end.
    catcher.focus();
    setTimeout(() => {
      const arrived = catcher.innerText;
      catcher.replaceChildren();
      insert(arrived);
      editor.focus();
      getSelection()?.selectAllChildren(editor);
      getSelection()?.collapseToEnd();
    }, 1);
  });
  editor.replaceChildren(emptyLine());
  normalize();
  return {
    element: editor,
    read,
    clear: () => {
      editor.replaceChildren(emptyLine());
      normalize();
      editor.dispatchEvent(new Event('input', { bubbles: true }));
    },
  };
}

/**
 * Code blocks. Invented (the research does not describe Gemini's): a `code-block` element
 * with a header showing the language's display name and a copy-code button — whose icon is
 * the same `content_copy` as the answer's own copy control, so only `message-actions`
 * tells them apart — and the raw language, which the header shows capitalized, kept in
 * `data-code-language` for readers of the DOM.
 */
function renderCode({ language, code }: CodeBlock): string {
  const header = language
    ? `<div class="code-block-decoration header-formatted" data-code-language="${escapeHtml(language)}">` +
      `<span>${escapeHtml(language.charAt(0).toUpperCase() + language.slice(1))}</span>` +
      `<div class="buttons">${iconButton('content_copy', L.copyCode, { class: 'copy-button mat-mdc-icon-button' }).outerHTML}</div></div>`
    : '';
  return (
    `<code-block><div class="code-block">${header}` +
    `<pre><code role="text" data-test-id="code-content" class="code-container formatted">${escapeHtml(code)}</code></pre></div></code-block>`
  );
}

const gemini: Skin = {
  attach: geminiAttach,
  renderCode,
  // No captured answer holds a link: a link that opens elsewhere, as every site's does.
  linkAttributes: { target: '_blank', rel: 'noopener' },
  mount(root) {
    document.documentElement.lang = L === LABELS.ja ? 'ja' : 'en';
    document.head.append(el('style', {}, STYLE));
    const boot = window.__SIM_BOOT;

    // The composer.
    const editor = el('div', {
      class: 'ql-editor textarea new-input-ui',
      contenteditable: 'true',
      role: 'textbox',
      'aria-multiline': 'true',
      'aria-label': L.prompt,
      'data-placeholder': L.placeholder,
      'data-gramm': 'false',
    });
    const catcher = el('div', { class: 'ql-clipboard', contenteditable: 'true', tabindex: '-1' });
    const richTextarea = el('rich-textarea', { class: 'text-input-field_textarea ql-container', enterkeyhint: 'send' }, editor, catcher);
    const composer = quillComposer(editor, catcher, boot.layout === 'quill-clipboard' ? 'catcher' : 'event');

    // The send slot: the microphone while empty (the trap a "button beside the composer"
    // fallback falls into), the send button once there is text, stop while answering.
    const mic = el('speech-dictation-mic-button', {}, iconButton('mic', L.mic, { class: 'speech_dictation_mic_button mat-mdc-icon-button' }));
    const sendButton = iconButton('send', L.send, { class: 'send-button submit mat-mdc-icon-button', 'aria-disabled': 'false' });
    const stopButton = iconButton('stop', L.stop, { class: 'send-button stop mat-mdc-icon-button' });
    const slot = el('div', { 'data-test-id': 'send-button-container', class: 'send-button-container' });
    let shown: ComposerMode | null = null;

    const inputArea = el(
      'input-area-v2',
      { class: 'input-area' },
      el('gem-icon-button', { arialabel: L.upload }, iconButton('add_2', L.upload, { 'aria-haspopup': 'menu', 'aria-expanded': 'false' })),
      el('div', { 'data-test-id': 'textarea-wrapper', class: 'text-input-field' }, el('div', { 'data-test-id': 'textarea-inner' }, richTextarea)),
      slot,
    );
    const notices = el('div', { class: 'input-notices' });

    // The transcript.
    const scroller = el('infinite-scroller', { 'data-test-id': 'chat-history-container', class: 'chat-history' });
    const greeting = el('div', { class: 'zero-state-container' }, el('h1', { class: 'greeting' }, L.greeting));
    let exchange: HTMLElement | null = null;

    // The top bar. The account link is invented from general knowledge of Google's bar, not
    // the research: a signed-in page carries a link to accounts.google.com too (to
    // SignOutOptions), so "any link to accounts.google.com" is no login wall. Logged out
    // (the anonymous page, or a session lost mid-use), a Sign in link holds its place; the
    // simulator's `/signin` stands in for accounts.google.com/ServiceLogin.
    const account = el('a', { class: 'gb_A gb_account', href: 'https://accounts.google.com/SignOutOptions?hl=en&continue=https://gemini.google.com/app', 'aria-label': L.account, role: 'button' }, 'A');
    account.addEventListener('click', (e) => e.preventDefault());
    const signIn = () => el('a', { class: 'gb_A gb_sign_in', 'aria-label': L.signIn, href: `/signin?continue=${encodeURIComponent(location.pathname)}` }, L.signIn);
    const topBar = el(
      'top-bar-actions',
      { class: 'top-bar' },
      el(
        'bard-mode-switcher',
        {},
        el('button', { type: 'button', 'data-test-id': 'bard-mode-menu-button', 'aria-label': L.modePicker, class: 'input-area-switch' }, '2.5 Flash'),
      ),
      boot.signedIn ? account : signIn(),
    );
    const sideNav = el(
      'bard-sidenav',
      {},
      el('button', { type: 'button', 'data-test-id': 'side-nav-menu-button', 'aria-label': L.menu }, '☰'),
      el('a', { href: '/app', 'aria-label': L.newChat, class: 'new-chat-button' }, '✎'),
    );

    root.append(
      el(
        'chat-app',
        { id: 'app-root' },
        el(
          'main',
          { class: 'chat-app' },
          sideNav,
          topBar,
          el(
            'chat-window',
            {},
            el('div', { id: 'chat-history', class: 'chat-history-scroll-container' }, greeting, scroller),
            el('input-container', {}, notices, inputArea),
          ),
        ),
      ),
    );
    if (boot.history.length > 0) greeting.remove();

    return {
      composer,
      sendButton,
      stopButton,
      setMode(mode) {
        if (mode === shown) return;
        shown = mode;
        // Angular renders the slot's buttons conditionally: absent, not hidden.
        slot.replaceChildren(...(mode === 'generating' ? [stopButton] : mode === 'ready' ? [mic, sendButton] : [mic]));
      },
      addUserTurn(text) {
        greeting.remove();
        exchange = el('div', { class: 'conversation-container', id: hex(8) });
        const lines = text.split('\n').map((line) => el('p', { class: 'query-text-line' }, line));
        exchange.append(
          el('user-query', {}, el('div', { class: 'query-content' }, el('div', { class: 'user-query-bubble-with-background' }, el('div', { class: 'query-text', dir: 'ltr' }, ...lines)))),
        );
        scroller.append(exchange);
      },
      addAssistantTurn() {
        const id = `r_${hex(8)}`;
        const markdown = el('div', {
          class: 'markdown markdown-main-panel',
          id: `model-response-message-content${id}`,
          'aria-live': 'polite',
          'aria-busy': 'true',
          dir: 'ltr',
        });
        const content = el('message-content', { class: 'model-response-text', id: `message-content-id-${id}` }, markdown);
        const presented = el('div', { class: 'presented-response-container' }, content);
        const footer = el('div', { class: 'response-footer gap' });
        const container = el('div', { class: 'response-container' }, presented, footer);
        (exchange ?? scroller).append(el('model-response', {}, el('response-container', {}, container)));

        const actions = (copies: string) => {
          const copy = iconButton('content_copy', L.copy, { 'data-test-id': 'copy-button' });
          // The real copy button offers rich text too; ChatBridge wants the plain text.
          copy.addEventListener('click', () => {
            const item = new ClipboardItem({
              'text/plain': new Blob([copies], { type: 'text/plain' }),
              'text/html': new Blob([markdown.innerHTML], { type: 'text/html' }),
            });
            void navigator.clipboard.write([item]);
          });
          return el(
            'message-actions',
            {},
            el(
              'div',
              { class: 'actions-container-v2' },
              el(
                'div',
                { class: 'buttons-container-v2' },
                el('thumb-up-button', {}, iconButton('thumb_up', L.good)),
                el('thumb-down-button', {}, iconButton('thumb_down', L.bad)),
                el('regenerate-button', {}, iconButton('refresh', L.redo)),
                el('copy-button', {}, copy),
                iconButton('more_vert', L.more, { 'aria-haspopup': 'menu' }),
              ),
            ),
          );
        };
        const complete = (copies: string) => {
          markdown.setAttribute('aria-busy', 'false');
          footer.append(actions(copies));
          footer.classList.add('complete');
        };

        return {
          render(html) {
            markdown.innerHTML = html;
          },
          finish(md) {
            complete(md);
          },
          // Invented: the research has no Gemini error card. Beside the answer, never in it;
          // the footer never completes.
          error() {
            markdown.setAttribute('aria-busy', 'false');
            presented.append(
              el(
                'div',
                { class: 'response-error', 'data-test-id': 'response-error', role: 'alert' },
                el('span', {}, L.error),
                el('button', { type: 'button', class: 'retry-button' }, L.retry),
              ),
            );
          },
          // Invented: on the real site a refusal reads like any answer. Here the answer holds
          // the words and a notice beside it marks the refusal; the turn completes as usual.
          refuse(text) {
            markdown.innerHTML = `<p>${escapeHtml(text)}</p>`;
            presented.append(el('div', { class: 'blocked-response-notice', 'data-test-id': 'blocked-response-notice' }, L.blocked));
            complete(text);
          },
          stopped() {
            presented.append(el('div', { class: 'stopped-response-notice' }, L.stopped));
            complete(markdown.textContent ?? '');
          },
        };
      },
      showLoginWall() {
        // The simulator's `/signin` stands in for accounts.google.com/ServiceLogin.
        account.replaceWith(signIn());
        notices.replaceChildren(el('div', { class: 'signed-out-notice' }, L.signedOut));
      },
      // Invented: the research found no Gemini limit banner in the DOM (only server codes).
      showLimitBanner(text) {
        notices.replaceChildren(el('div', { class: 'usage-limit-banner', 'data-test-id': 'usage-limit-banner', role: 'alert' }, text));
      },
    };
  },
};

startApp(gemini);
