/**
 * Perplexity's DOM contract (research/providers.md §7, with the live-page notes of the
 * WebMCP adapter it cites).
 *
 * Observed on the real site, reproduced here:
 * - composer: Lexical, `#ask-input[contenteditable="true"][data-lexical-editor="true"]
 *   [role="textbox"]`, lines as `<p>` holding `span[data-lexical-text]`, an empty line as
 *   `<p><br></p>`, the placeholder a separate element; a paste is read from the event's
 *   `clipboardData` (Lexical does; a synthetic paste with a DataTransfer works);
 * - the zero state has no submit button at all: its slot holds the accent "Use voice mode"
 *   button, after "Add files or tools", the Search/Research mode radios, "Model" and
 *   "Dictation"; with text, `button[aria-label="Submit"][data-testid="submit-button"]`;
 *   in a thread an empty composer shows Submit `disabled` and `pointer-events-none`;
 *   while answering, `button[aria-label="Stop"]` (React renders these, so the absent ones
 *   are gone from the DOM, not hidden);
 * - the user's query is a plain `whitespace-pre-line` span; the answer is
 *   `[data-workflow-final-text]` (the rendered Markdown only, in a `.prose`), and its
 *   actions row is the sibling `[data-workflow-text-footer]` right after it, holding Copy
 *   (third button of its first `items-center` group, as an older adapter clicked it);
 * - code blocks are `<pre><figure><figcaption>lang</figcaption><code>`: the language sits
 *   in the caption, outside `<code>`, which carries no language class;
 * - a "Related" section follows a finished answer;
 * - the address moves from `/search/new/…` to the final `/search/<slug>` (the engine).
 *
 * Where the research is silent, the markup is invented, and says so below: the progress
 * line, the error card, the refusal notice, the sign-in modal.
 */
import { startApp } from '../app.js';
import { el, lineText } from '../dom.js';
import { escapeHtml, type CodeBlock } from '../markdown.js';
import type { Composer, ComposerMode, Skin } from '../skin.js';

const STYLE = `
#ask-input{white-space:pre-wrap;word-break:break-word;outline:none;min-height:40px;border:1px solid #888;padding:6px;position:relative}
#ask-input p{margin:0}
.ask-placeholder{position:absolute;top:7px;left:7px;color:#999;pointer-events:none}
/* The few Tailwind utilities the markup below relies on for its layout. */
.relative{position:relative}
.flex{display:flex}
.flex-col{flex-direction:column}
.items-center{align-items:center}
.justify-between{justify-content:space-between}
.gap-1{gap:4px}
.gap-2{gap:8px}
.gap-3{gap:12px}
.hidden{display:none}
.pointer-events-none{pointer-events:none}
.query{font-size:20px;margin:24px 0 8px}
.whitespace-pre-line{white-space:pre-line}
figure{margin:0}
figcaption{display:flex;justify-content:space-between;font-size:12px;color:#555}
[data-workflow-text-footer] .items-center{display:inline-flex;gap:4px;margin-right:16px}
.related{margin-top:12px;border-top:1px solid #ddd}
.notice-area [role="alert"]{background:#fff4e5;padding:8px 12px;margin:8px 0}
.sidebar{display:flex;gap:8px;margin-bottom:12px}
[role="dialog"]{border:1px solid #888;padding:16px;margin:12px 0;background:#fff}
`;

const ICON = {
  copy: '<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><rect x="8" y="8" width="12" height="12" rx="2" fill="none" stroke="currentColor"/><rect x="4" y="4" width="12" height="12" rx="2" fill="none" stroke="currentColor"/></svg>',
  arrow: '<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M12 19V5M5 12l7-7 7 7" fill="none" stroke="currentColor"/></svg>',
  stop: '<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><rect x="6" y="6" width="12" height="12" fill="currentColor"/></svg>',
  wave: '<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M4 10v4M8 6v12M12 9v6M16 4v16M20 10v4" stroke="currentColor"/></svg>',
};

const icon = (svg: string): HTMLElement => {
  const span = el('span', { class: 'flex items-center' });
  span.innerHTML = svg;
  return span;
};

const button = (label: string, svg: string, attrs: Record<string, string> = {}): HTMLElement =>
  el('button', { type: 'button', 'aria-label': label, class: 'focus-visible:bg-offsetPlus rounded-lg', ...attrs }, icon(svg));

/**
 * A stand-in for Lexical's rich-text editor. A paste is read from the event's data and
 * inserted as Lexical inserts plain text: a paragraph per line, a tab node per tab. It is
 * appended to the text (the simulator does not track the caret). Typing goes through the
 * browser's own editing; Enter sends (the engine).
 */
function lexicalComposer(editor: HTMLElement, placeholder: HTMLElement): Composer {
  const paragraph = (line: string) => {
    if (!line) return el('p', {}, el('br'));
    const p = el('p', { dir: 'ltr' });
    for (const part of line.split(/(\t)/)) {
      if (part) p.append(el('span', { 'data-lexical-text': 'true' }, part));
    }
    return p;
  };
  const read = () => Array.from(editor.children, lineText).join('\n');
  const sync = () => {
    if (!editor.firstElementChild) editor.replaceChildren(paragraph(''));
    placeholder.classList.toggle('hidden', !(editor.children.length === 1 && lineText(editor.firstElementChild!) === ''));
  };
  // Registered before the engine's own `input` listener, so the engine sees a synced editor.
  editor.addEventListener('input', sync);
  editor.addEventListener('paste', (event) => {
    event.preventDefault();
    const pasted = (event.clipboardData?.getData('text/plain') ?? '').replace(/\r\n/g, '\n');
    if (!pasted) return;
    editor.replaceChildren(...read().concat(pasted).split('\n').map(paragraph));
    editor.dispatchEvent(new Event('input', { bubbles: true }));
  });
  editor.replaceChildren(paragraph(''));
  sync();
  return {
    element: editor,
    read,
    clear: () => {
      editor.replaceChildren(paragraph(''));
      editor.dispatchEvent(new Event('input', { bubbles: true }));
    },
  };
}

/** `<pre><figure><figcaption>` with the language, then `<code>` without a language class. */
function renderCode({ language, code }: CodeBlock): string {
  // The caption's copy-code button is invented (the research does not mention one): it
  // carries an icon only, so the caption's first text stays the language.
  const caption = language
    ? `<figcaption class="flex items-center justify-between">${escapeHtml(language)}` +
      `<button type="button" aria-label="Copy code" class="rounded-md">${ICON.copy}</button></figcaption>`
    : '';
  return `<pre class="not-prose"><figure class="rounded-lg">${caption}<code style="white-space:pre">${escapeHtml(code)}</code></figure></pre>`;
}

const perplexity: Skin = {
  renderCode,
  mount(root) {
    document.head.append(el('style', {}, STYLE));
    const boot = window.__SIM_BOOT;
    /** The zero state (home, no thread yet) versus a thread with a follow-up composer. */
    let inThread = boot.history.length > 0;

    // The composer.
    const editor = el('div', {
      id: 'ask-input',
      contenteditable: 'true',
      role: 'textbox',
      spellcheck: 'true',
      'data-lexical-editor': 'true',
      'aria-placeholder': 'Ask anything…',
    });
    const placeholder = el('div', { class: 'ask-placeholder', 'aria-hidden': 'true' }, 'Ask anything…');
    const composer = lexicalComposer(editor, placeholder);
    const fileInput = el('input', { type: 'file', multiple: '', accept: '.md,.txt,.pdf,.csv,.json,.png,.jpg', style: 'display: none;' });

    const voice = button('Use voice mode', ICON.wave, { class: 'bg-super text-inverse rounded-full' });
    const sendButton = button('Submit', ICON.arrow, { 'data-testid': 'submit-button', class: 'bg-super text-inverse rounded-full' });
    const stopButton = button('Stop', ICON.stop, { 'data-testid': 'stop-button', class: 'bg-super text-inverse rounded-full' });
    const slot = el('div', { class: 'flex items-center' });
    let shown = '';

    const toolbar = el(
      'div',
      { class: 'flex items-center justify-between' },
      el(
        'div',
        { class: 'flex items-center gap-2' },
        el('button', { type: 'button', 'aria-label': 'Add files or tools' }, '+'),
        el(
          'div',
          { role: 'radiogroup', class: 'flex' },
          el('button', { type: 'button', role: 'radio', 'aria-checked': 'true', 'aria-label': 'Search', value: 'search' }, 'Search'),
          el('button', { type: 'button', role: 'radio', 'aria-checked': 'false', 'aria-label': 'Research', value: 'research' }, 'Research'),
        ),
      ),
      el(
        'div',
        { class: 'flex items-center gap-2' },
        el('button', { type: 'button', 'aria-label': 'Model' }, 'Best'),
        el('button', { type: 'button', 'aria-label': 'Dictation' }, '🎙'),
        slot,
      ),
      fileInput,
    );
    const composerBox = el('div', { class: 'bg-raised rounded-2xl' }, el('div', { class: 'relative' }, placeholder, editor), toolbar);

    // Page chrome: the account (signed in) or Sign in buttons (signed out).
    const account = el('div', { class: 'sidebar-account' }, el('a', { href: '/settings/account', 'aria-label': 'Account', class: 'flex items-center' }, 'agent'));
    const sidebar = el('nav', { class: 'sidebar' }, el('a', { href: '/', 'aria-label': 'Home' }, 'Home'), el('a', { href: '/library' }, 'Library'), account);
    const home = el('div', { class: 'zero-state' }, el('h1', { class: 'brand' }, 'perplexity'));
    const thread = el('div', { class: 'scrollable-container flex flex-col' });
    const notices = el('div', { class: 'notice-area' });
    let entry: HTMLElement | null = null;

    root.append(el('div', { id: '__next' }, sidebar, el('main', {}, home, thread, notices, composerBox)));

    const enterThread = () => {
      if (inThread) return;
      inThread = true;
      home.remove();
      placeholder.textContent = 'Ask a follow-up';
      editor.setAttribute('aria-placeholder', 'Ask a follow-up');
      shown = '';
    };
    if (inThread) {
      inThread = false;
      enterThread();
    }

    const setSlot = (mode: ComposerMode) => {
      const key = `${mode}:${inThread}`;
      if (key === shown) return;
      shown = key;
      if (mode === 'generating') return slot.replaceChildren(stopButton);
      if (mode === 'ready') {
        sendButton.removeAttribute('disabled');
        sendButton.classList.remove('pointer-events-none');
        return slot.replaceChildren(sendButton);
      }
      // Empty, or the reasoning pause: the zero state's voice button, or in a thread an idle,
      // disabled Submit — nothing that says "still answering".
      if (!inThread) return slot.replaceChildren(voice);
      sendButton.setAttribute('disabled', '');
      sendButton.classList.add('pointer-events-none');
      slot.replaceChildren(sendButton);
    };

    return {
      composer,
      sendButton,
      stopButton,
      setMode: setSlot,
      addUserTurn(text) {
        enterThread();
        entry = el('div', { class: 'thread-entry border-b' });
        entry.append(el('div', { class: 'query group/query' }, el('span', { class: 'select-text whitespace-pre-line break-words' }, text)));
        thread.append(entry);
      },
      addAssistantTurn() {
        const prose = el('div', { class: 'prose dark:prose-invert inline leading-relaxed break-words min-w-0' });
        const finalText = el('div', { 'data-workflow-final-text': '', class: 'relative font-sans text-base' }, prose);
        // Invented: a progress line while the answer is being worked on, outside the answer.
        const progress = el('div', { class: 'workflow-progress text-quiet' }, 'Searching…');
        const block = el('div', { class: 'flex flex-col gap-3' }, progress, finalText);
        (entry ?? thread).append(block);

        const footer = (copies: string) => {
          const copy = button('Copy', ICON.copy);
          copy.addEventListener('click', () => void navigator.clipboard.writeText(copies));
          return el(
            'div',
            { 'data-workflow-text-footer': '', class: 'flex items-center justify-between' },
            el('div', { class: 'flex items-center gap-1' }, button('Share', ICON.arrow), button('Rewrite', ICON.wave), copy),
            el('div', { class: 'flex items-center gap-1' }, button('Helpful', ICON.arrow), button('Not helpful', ICON.arrow), button('More', ICON.wave)),
          );
        };
        const done = (copies: string) => {
          progress.remove();
          finalText.after(footer(copies));
        };

        return {
          render(html) {
            progress.textContent = 'Writing answer…';
            prose.innerHTML = html;
          },
          finish(md) {
            done(md);
            const related = ['Tell me more', 'What are the alternatives?', 'Can you give an example?'];
            block.after(
              el(
                'div',
                { class: 'related' },
                el('h2', {}, 'Related'),
                ...related.map((q) => el('div', { class: 'related-query' }, el('button', { type: 'button' }, q))),
              ),
            );
          },
          // Invented: the research knows only generic `[role="alert"]` scanning. Beside the
          // answer, never in it; no actions row follows.
          error() {
            progress.remove();
            block.append(
              el('div', { role: 'alert', class: 'answer-error text-caution' }, el('span', {}, 'Something went wrong. Please try again later.'), el('button', { type: 'button' }, 'Retry')),
            );
          },
          // Invented: on the real site a refusal reads like any answer. Here the answer holds
          // the words and a notice beside it marks the refusal; the turn completes as usual.
          refuse(text) {
            prose.innerHTML = `<p>${escapeHtml(text)}</p>`;
            done(text);
            block.append(el('div', { 'data-testid': 'answer-refusal-notice', class: 'text-quiet' }, 'This request was declined under the usage policy.'));
          },
          stopped() {
            progress.remove();
          },
        };
      },
      // Invented: the signed-out page's "Sign in" / "Sign Up" buttons (the research's login
      // cue) and a sign-in modal.
      showLoginWall() {
        const signIn = el('button', { type: 'button', class: 'rounded-full' }, 'Sign in');
        signIn.addEventListener('click', () => location.assign('/account/signin'));
        account.replaceChildren(signIn, el('button', { type: 'button', class: 'rounded-full' }, 'Sign Up'));
        root.append(
          el(
            'div',
            { role: 'dialog', 'aria-modal': 'true' },
            el('h2', {}, 'Sign in or create an account'),
            el('button', { type: 'button' }, 'Continue with Google'),
            el('button', { type: 'button' }, 'Continue with Apple'),
            el('input', { type: 'email', placeholder: 'Enter your email' }),
            el('button', { type: 'button' }, 'Continue with email'),
          ),
        );
      },
      // The research: limit banners found by `[class*="banner"]` / `[role="alert"]` and their words.
      showLimitBanner(text) {
        notices.replaceChildren(el('div', { role: 'alert', class: 'pro-limit-banner rounded-lg' }, text, ' ', el('a', { href: '/pro' }, 'Upgrade to Pro')));
      },
    };
  },
};

startApp(perplexity);
