/**
 * Claude's DOM contract (research/providers.md §3, with the field notes it cites: the
 * 2026-08-27…31 claude.ai selector log and the 2026 adapters).
 *
 * Observed on the real site, reproduced here:
 * - composer: TipTap/ProseMirror `div[contenteditable][role="textbox"].tiptap.ProseMirror`
 *   with `data-testid="chat-input"`; idle it holds `<p data-placeholder="Write a message…"
 *   class="is-empty is-editor-empty">`;
 * - send: `button[data-testid="chat-input-send"][aria-label="Send message"]`, present but
 *   `disabled` and `inert` while the composer is empty ("Use voice mode" sits beside it);
 *   stop: `[data-testid="chat-input-stop"][aria-label="Stop response"]` while streaming;
 * - transcript: `[data-testid="transcript-list"]` › `[data-testid="transcript-row"]` with
 *   `data-perf-row="human|assistant"`, `data-index`, `data-last-message`,
 *   `data-perf-row-from-tail` and `data-perf-row-streaming` ("true" from the row's creation,
 *   "false" once that turn is finished); the row's first child says "Message 3 of 8"; an
 *   `h2.sr-only` "Claude responded: …" / "You said: …" heading previews the message;
 * - assistant body: `[data-testid="assistant-message"][data-is-streaming]` ›
 *   `.font-claude-response` › `.standard-markdown`; user body `[data-cds="UserMessage"]` ›
 *   `[data-testid="user-message"]`;
 * - after completion: `[data-cds="MessageActions"][role="toolbar"][aria-label="Message actions"]`
 *   (faded in on hover) with `action-bar-copy` (copies Markdown), `action-bar-retry`, the
 *   thumbs and a `time[data-cds="RelativeTime"]`;
 * - an interrupted reply shows "Claude's response was interrupted." with two
 *   `button[data-cds="Button"]` ("Edit prompt", "Try again") and no action bar;
 * - `/new` becomes `/chat/<uuid>` without a reload (the engine); a lost session goes to `/login`.
 *
 * And the 2026 facts of research/providers-live-2026.md ("Claude"), in every layout:
 * - the transcript is virtualized: only the newest rows are mounted (about six), older ones
 *   are unmounted as new ones arrive and keep their absolute `data-index`;
 * - a used-up free allowance REPLACES the editor with `section[data-composer-stand-in]`
 *   ("Your free messages return at 8:00 PM.", 2026-10): no composer, no send button.
 *
 * Three layouts (SimSiteConfig.layouts), all seen live in 2026:
 * - `transcript` (default: the 2026-09-02 snapshot, the freshest, agrees with the 2026
 *   adapters): the `transcript-row` rows above;
 * - `rs-rows` (a 2026-07-16 live DOM dump): the list is `[role="article"][aria-label="chat
 *   messages"]`, rows are `[data-rs-index]` with `data-last-message`, each holding
 *   `[role="article"][aria-label="Message X of N"]`; no `transcript-row` test id and no
 *   `data-perf-row*` (user and assistant rows are told apart by the sr-only "Claude
 *   responded:" / "You said:" headings and the content). The message contents are assumed
 *   unchanged (the dump names `.font-claude-response`, `.font-claude-response-body` and
 *   `[data-testid="virtual-message-list"]` around it, nothing else);
 * - `render-count` (real pages of 2026-04 and -05, ../shared/real-pages/claude): no row
 *   wrapper; each message is `div[data-test-render-count]` › `.group` › `.contents`; the reply
 *   is `div[data-is-streaming]` with no test id, its sr-only heading inside it and a status row
 *   (TurnStatus) above the reply in `.font-claude-response`; the action bar
 *   `div[role="group"][aria-label="Message actions"]` (not a toolbar) is the sibling of
 *   `.contents`, its buttons each in a `div[data-state]` tooltip box.
 *
 * Where the research is silent, the markup below is invented and says so.
 */
import { startApp } from '../app.js';
import { claudeAttach } from '../attach/claude.js';
import { richComposer } from '../composers.js';
import { el, show } from '../dom.js';
import { escapeHtml } from '../markdown.js';
import type { Skin } from '../skin.js';
import { claudeRows } from './claude-rows.js';

// Stand-ins for the Tailwind utilities the real page uses to hide the screen-reader
// headings and to fade the action bar in on hover.
const STYLE = `
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
[data-reveal="fade"]{opacity:0;transition:opacity .15s}
:hover > * > [data-reveal="fade"],[data-last-message="true"] [data-reveal="fade"]{opacity:1}
[data-testid="transcript-row"],[data-rs-index]{margin:12px 0}
section[data-composer-stand-in]{border:1px solid #d9d6cc;border-radius:12px;padding:12px 16px}
[data-cds="UserMessage"]{background:#f0eee6;border-radius:12px;padding:8px 12px}
.code-block__label{font-size:12px;color:#777;margin-bottom:4px}
.code-block__copy{float:right}
`;

/** Rows the virtualized transcript keeps mounted. */
const MOUNTED_ROWS = 6;
const PREVIEW = 80;
const preview = (text: string) => (text.length > PREVIEW ? `${text.slice(0, PREVIEW).trimEnd()}…` : text).replace(/\s+/g, ' ').trim();

const claude: Skin = {
  attach: claudeAttach,
  mount(root) {
    document.head.append(el('style', {}, STYLE));
    const rows = claudeRows(window.__SIM_BOOT.layout, MOUNTED_ROWS);

    const editor = el('div', {
      contenteditable: 'true',
      role: 'textbox',
      translate: 'no',
      class: 'tiptap ProseMirror',
      'data-testid': 'chat-input',
      'aria-multiline': 'true',
    });
    const composer = richComposer(editor, 'Write a message…');
    // TipTap marks the empty document's paragraph `is-editor-empty` as well.
    const markEmpty = () => {
      for (const p of Array.from(editor.querySelectorAll('p'))) p.classList.toggle('is-editor-empty', p.classList.contains('placeholder'));
    };
    editor.addEventListener('input', markEmpty);
    markEmpty();

    const model = el('button', { type: 'button', 'data-testid': 'model-selector-dropdown' }, 'Claude Sonnet');
    const voice = el('button', { type: 'button', 'aria-label': 'Use voice mode' }, '🎙');
    // The design-system attribute is from the 2026-07 SSR shell.
    const send = el('button', { type: 'button', 'data-cds': 'Button', 'data-testid': 'chat-input-send', 'aria-label': 'Send message' }, '↑') as HTMLButtonElement;
    const stop = el('button', { type: 'button', 'data-testid': 'chat-input-stop', 'aria-label': 'Stop response' }, '■');
    const composerBox = el(
      'div',
      { class: 'composer-box' },
      el('div', { class: 'editor-wrapper' }, editor),
      el('div', { class: 'composer-toolbar flex' }, model, voice, send, stop),
    );
    const fieldset = el('fieldset', { class: 'flex w-full min-w-0 flex-col' }, composerBox);
    const app = el(
      'div',
      { class: 'root flex' },
      el('nav', { 'aria-label': 'Sidebar' }, el('a', { href: '/new', 'aria-label': 'New chat' }, 'New chat'), el('a', { href: '/recents' }, 'Chats')),
      el('main', {}, el('div', { class: 'overflow-y-auto overflow-x-hidden' }, rows.element), fieldset),
    );
    root.append(app);

    const heading = (text: string) => el('h2', { class: 'sr-only select-none', 'data-find-omitted': '' }, text);
    const renderCount = window.__SIM_BOOT.layout === 'render-count';

    /** The reply in a transcript row: `[data-testid="assistant-message"]` beside the row's heading. */
    const rowMessage = (body: HTMLElement, title: HTMLElement) => {
      const message = el('div', { 'data-testid': 'assistant-message', 'data-is-streaming': 'true' }, el('div', { class: 'font-claude-response relative' }, body));
      return { message, ...rows.add('assistant', title, message) };
    };
    /**
     * The reply as the real pages of 2026-04/-05 show it: `div[data-is-streaming]` without a
     * test id, the heading inside it, and in `.font-claude-response` a status row (the
     * TurnStatus block: its words here are invented, the captures blank them) above the reply.
     */
    const realPagesMessage = (body: HTMLElement, title: HTMLElement) => {
      const status = el(
        'div',
        { class: 'row-start-1 col-start-1 min-w-0' },
        el('button', { type: 'button', class: 'group/status flex items-center gap-2' }, el('span', { class: 'truncate text-sm' }, 'Thought process')),
      );
      const grid = el('div', { class: 'grid grid-rows-[auto_auto] min-w-0' }, status, el('div', { class: 'row-start-2 col-start-1 relative grid' }, body));
      const message = el('div', { 'data-is-streaming': 'true', class: 'group relative pb-3' }, title, el('div', { class: 'font-claude-response relative' }, el('div', {}, grid)));
      return { message, ...rows.add('assistant', message) };
    };

    return {
      composer,
      sendButton: send,
      stopButton: stop,
      setMode(mode) {
        // 'paused' (a reasoning pause) looks idle from the composer: only the row still streams.
        const generating = mode === 'generating';
        const ready = mode === 'ready';
        send.disabled = !ready;
        send.toggleAttribute('inert', !ready);
        show(send, !generating);
        show(stop, generating);
        show(voice, mode === 'empty' || mode === 'paused');
      },
      addUserTurn(text) {
        rows.add(
          'human',
          heading(`You said: ${preview(text)}`),
          el(
            'div',
            { 'data-cds': 'UserMessage' },
            el('div', { 'data-testid': 'user-message', class: 'font-user-message' }, el('p', { class: 'whitespace-pre-wrap break-words' }, text)),
          ),
        );
      },
      addAssistantTurn() {
        const body = el('div', { class: 'standard-markdown grid-cols-1 grid gap-2.5' });
        const title = heading('Claude responded: ');
        const { message, row, inner, beside } = renderCount ? realPagesMessage(body, title) : rowMessage(body, title);
        /** The per-turn finished signal, flipped after everything the finished turn shows is in place. */
        const done = () => {
          title.textContent = `Claude responded: ${preview(body.textContent ?? '')}`;
          message.setAttribute('data-is-streaming', 'false');
          rows.finished(row);
        };
        return {
          render(html) {
            body.innerHTML = html;
          },
          finish(markdown) {
            const copy = el('button', { type: 'button', 'data-testid': 'action-bar-copy', 'aria-label': 'Copy' }, '⧉');
            copy.addEventListener('click', () => void navigator.clipboard.writeText(markdown));
            const retry = el('button', { type: 'button', 'data-testid': 'action-bar-retry', 'aria-label': 'Retry' }, '↻');
            const up = el('button', { type: 'button', 'aria-label': 'Give positive feedback' }, '👍');
            const down = el('button', { type: 'button', 'aria-label': 'Give negative feedback' }, '👎');
            if (renderCount) {
              // The real pages' bar: a group (not a toolbar), each button in its own tooltip box.
              const tip = (button: HTMLElement) => el('div', { 'data-state': 'closed', class: 'w-fit' }, button);
              beside.append(
                el(
                  'div',
                  { role: 'group', 'aria-label': 'Message actions', class: 'flex justify-start' },
                  el(
                    'div',
                    { class: 'text-text-300' },
                    el('div', { class: 'text-text-300 flex items-stretch justify-between' }, tip(copy), tip(up), tip(down), el('div', { class: 'flex items-center' }, tip(retry))),
                  ),
                ),
              );
            } else {
              beside.append(
                el(
                  'div',
                  {
                    'data-cds': 'MessageActions',
                    'data-reveal': 'fade',
                    role: 'toolbar',
                    'aria-label': 'Message actions',
                    tabindex: '-1',
                    class: 'flex items-center',
                  },
                  copy,
                  up,
                  down,
                  retry,
                  el('time', { 'data-cds': 'RelativeTime', datetime: new Date().toISOString() }, 'just now'),
                ),
              );
            }
            done();
          },
          error() {
            // The notice's first sentence and its two unlabelled buttons are observed; the
            // wrapper and the rest of the wording are invented.
            // Invented for the render-count layout: no row says which reply is the last, so the
            // notice is an alert there.
            inner.append(
              el(
                'div',
                { class: 'interrupted-notice flex flex-col gap-2', ...(renderCount ? { role: 'alert' } : {}) },
                el('p', {}, 'Claude’s response was interrupted. This can be caused by network problems. Please try again.'),
                el(
                  'div',
                  { class: 'flex gap-2' },
                  el('button', { type: 'button', 'data-cds': 'Button' }, 'Edit prompt'),
                  el('button', { type: 'button', 'data-cds': 'Button' }, 'Try again'),
                ),
              ),
            );
            done();
          },
          refuse(text) {
            // Invented: the research has no refusal markup. Modelled on the usage-policy notice
            // claude.ai shows under a blocked reply, outside the reply's own text.
            body.innerHTML = `<p>${escapeHtml(text)}</p>`;
            inner.append(
              el(
                'div',
                { class: 'policy-notice' },
                el('p', {}, 'Claude Sonnet 4.5 is unable to respond to this request, which appears to violate our Usage Policy. Please start a new chat.'),
              ),
            );
            done();
          },
          stopped() {
            // The partial reply stays, finished as far as the row is concerned.
            done();
          },
        };
      },
      showLoginWall() {
        // A lost session sends the app to /login (research §3.4). The client-side route keeps the
        // page alive, as the single-page app does; the login screen's markup is invented apart
        // from the Google button's test id (a 2026-09 adapter keys logged-out on it).
        history.pushState(null, '', `/login?returnTo=${encodeURIComponent(location.pathname)}`);
        document.title = 'Log in - Claude';
        root.replaceChildren(
          el(
            'main',
            { class: 'login' },
            el('h1', {}, 'Your ideas, amplified'),
            el('button', { type: 'button', 'data-testid': 'login-with-google' }, 'Continue with Google'),
            el('input', { type: 'email', id: 'email', placeholder: 'Enter your email', autocomplete: 'email' }),
            el('button', { type: 'button' }, 'Continue with email'),
          ),
        );
      },
      showLimitBanner(text) {
        // The 2026-10 notice stands in for the editor: composer, send and stop are gone until
        // the allowance returns. Its sentence is observed; the Upgrade link is carried over from
        // the older notice's words ("… until 10:00 AM" + Upgrade). The time comes from the engine.
        const at = /\d{1,2}:\d{2}\s*[AP]M/i.exec(text)?.[0];
        fieldset.replaceChildren(
          el(
            'section',
            { 'data-composer-stand-in': '', class: 'flex items-center gap-2' },
            el('p', {}, at ? `Your free messages return at ${at}.` : 'You are out of free messages.'),
            el('a', { href: '/upgrade', class: 'underline' }, 'Upgrade'),
          ),
        );
      },
    };
  },
  // An answer's link, as the real page of 2026-05 has it.
  linkAttributes: { class: 'underline underline underline-offset-2 decoration-1 decoration-current/40 hover:decoration-current focus:decoration-current' },
  // Claude's code block: a labelled group with the copy control and the language label inside
  // <pre> (the research reaches the copy button as `pre button`; innerText shows the label as
  // a bare line before the code), the code itself in `code.language-<lang>`. The wrapper's
  // role="group" is what a 2026 reader skips code blocks by; the classes are invented.
  renderCode({ language, code }) {
    const lang = escapeHtml(language);
    return (
      `<div role="group" aria-label="${lang} code" class="relative group/copy rounded-lg">` +
      `<pre class="code-block__code"><div class="code-block__copy sticky"><button type="button" aria-label="Copy to clipboard">⧉</button></div>` +
      `<div class="code-block__label">${lang}</div>` +
      `<code${lang ? ` class="language-${lang}"` : ''} style="white-space: pre;">${escapeHtml(code)}</code></pre></div>`
    );
  },
};

startApp(claude);
