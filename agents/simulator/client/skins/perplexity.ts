/**
 * Perplexity's DOM contract (research/providers.md §7; research/providers-live-2026.md,
 * Perplexity, with the 2026 adapters it cites).
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
 * - the user's query, an `h1.group/query` in its title block, holds a plain
 *   `whitespace-pre-line` span; before the block, its icon buttons, Edit and Copy (copies the
 *   question), labelled "Edit query" and "Copy query" in `markdown-content`; in `final-text`
 *   each question's block is a numbered `[data-workflow-entry]`;
 * - every action button is icon-only: `<button>` > `<svg role="img">` >
 *   `<use xlink:href="#pplx-icon-…">`, no aria-label, no text (copy, share, repeat for
 *   Rewrite, thumb-up/-down, dots, cpu for the model);
 * - layout `final-text` (2026-10): while streaming the answer is a bare
 *   `.prose[data-renderer="lm"]`; once streamed, React renders it anew inside
 *   `[data-workflow-final-text]` (the wrapper appears only then), followed by the actions
 *   row `[data-workflow-text-footer]`: (Share, Rewrite, Copy) (Model, Helpful, Not helpful,
 *   More);
 * - layout `markdown-content` (the earlier renderer, still served to open threads and A/B
 *   variants; as the real pages of 2026-04/-05 in ../shared/real-pages/perplexity show it):
 *   the anchor `div[id^="markdown-content-"]` three boxes deep in the answer's
 *   `.gap-y-sm.flex.flex-col` column, holding `.prose` › `div[data-renderer="lm"]` from the
 *   first token, no `data-workflow-*` attributes; once streamed, the column's
 *   `.flex.items-center.justify-between` actions row follows the box that holds the answer,
 *   its icon buttons labelled (Share, Download, Copy, Rewrite Thread; Helpful, Not helpful,
 *   More actions);
 * - code blocks: `<pre>` > `.codeWrapper` > a sticky header with
 *   `button[data-testid="copy-code-button"][aria-label="Copy code"]` (the copy icon again),
 *   then `[data-testid="code-language-indicator"]` with the language, then `<code>` without
 *   a language class, each line a `<span>`;
 * - a "Related" section follows a finished answer; the tab's title becomes the thread's
 *   first query;
 * - the address moves from `/search/new/…` to the final `/search/<slug>` (the engine).
 *
 * Where the research is silent, the markup is invented, and says so below: the progress
 * line, the error card, the refusal notice, the sign-in modal.
 */
import { startApp } from '../app.js';
import { perplexityAttach } from '../attach/perplexity.js';
import { el, lineText } from '../dom.js';
import { escapeHtml, type CodeBlock } from '../markdown.js';
import type { AssistantTurn, Composer, ComposerMode, Skin } from '../skin.js';

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
.gap-y-sm{row-gap:8px}
.hidden{display:none}
.pointer-events-none{pointer-events:none}
.query{font-size:20px;margin:24px 0 8px}
.whitespace-pre-line{white-space:pre-line}
.codeWrapper{background:#f4f4f4;border-radius:8px;padding:4px 8px}
[data-testid="code-language-indicator"]{display:inline-block;font-size:12px;color:#555}
[data-workflow-text-footer] .items-center,.gap-y-sm > .justify-between > .items-center{display:inline-flex;gap:4px;margin-right:16px}
.related{margin-top:12px;border-top:1px solid #ddd}
.notice-area [role="alert"]{background:#fff4e5;padding:8px 12px;margin:8px 0}
.sidebar{display:flex;gap:8px;margin-bottom:12px}
[role="dialog"]{border:1px solid #888;padding:16px;margin:12px 0;background:#fff}
`;

/** The icon sprite: Perplexity's buttons draw `<use xlink:href="#pplx-icon-…">`. */
const SPRITE_ICONS: Record<string, string> = {
  copy: '<rect x="8" y="8" width="12" height="12" rx="2"/><rect x="4" y="4" width="12" height="12" rx="2"/>',
  share: '<path d="M12 15V3M7 8l5-5 5 5M5 13v8h14v-8"/>',
  repeat: '<path d="M4 12a8 8 0 0114-5M20 12a8 8 0 01-14 5M18 3v4h-4M6 21v-4h4"/>',
  'thumb-up': '<path d="M7 11v9H4v-9zM7 11l4-8a2 2 0 012 2v4h6l-2 11H7"/>',
  'thumb-down': '<path d="M7 13V4H4v9zM7 13l4 8a2 2 0 002-2v-4h6L17 4H7"/>',
  dots: '<circle cx="5" cy="12" r="1"/><circle cx="12" cy="12" r="1"/><circle cx="19" cy="12" r="1"/>',
  cpu: '<rect x="6" y="6" width="12" height="12"/><path d="M9 2v4M15 2v4M9 18v4M15 18v4"/>',
  pencil: '<path d="M4 20l4-1 11-11-3-3L5 16z"/>',
  'arrow-up': '<path d="M12 19V5M5 12l7-7 7 7"/>',
  'player-stop-filled': '<rect x="6" y="6" width="12" height="12" fill="currentColor"/>',
};
const SPRITE =
  '<svg style="display:none" aria-hidden="true">' +
  Object.entries(SPRITE_ICONS)
    .map(([name, body]) => `<symbol id="pplx-icon-${name}" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.75">${body}</symbol>`)
    .join('') +
  '</svg>';

/** The voice button's own icon (outside the sprite). */
const WAVE_ICON = '<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M4 10v4M8 6v12M12 9v6M16 4v16M20 10v4" stroke="currentColor"/></svg>';

const spriteIcon = (name: string) =>
  `<div class="flex shrink-0 items-center justify-center size-4"><svg role="img" class="inline-flex fill-current shrink-0" width="16" height="16"><use xlink:href="#pplx-icon-${name}"></use></svg></div>`;

/** An icon-only action button, as every action on the 2026 site is: no label, no text. */
const iconButton = (name: string): HTMLElement => {
  const b = el('button', { type: 'button', class: 'focus-visible:bg-quiet hover:bg-quiet text-quiet rounded-full h-8 aspect-square', 'data-state': 'closed' });
  b.innerHTML = `<div class="flex items-center min-w-0 justify-center">${spriteIcon(name)}</div>`;
  return b;
};

/** A labelled composer button (Submit, Stop, voice): these kept their aria-labels. */
const button = (label: string, svg: string, attrs: Record<string, string> = {}): HTMLElement => {
  const b = el('button', { type: 'button', 'aria-label': label, class: 'focus-visible:bg-offsetPlus rounded-lg', ...attrs });
  b.innerHTML = `<span class="flex items-center">${svg}</span>`;
  return b;
};

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

/**
 * A code block as the 2026 site renders it (a saved page of 2026: `pre.not-prose` >
 * `.codeWrapper` > the sticky header with the copy button, then the language indicator and
 * `<code>`, one `<span>` per line, each but the last ending in its newline).
 */
function renderCode({ language, code }: CodeBlock): string {
  const lines = code.replace(/\n$/, '').split('\n');
  const spans = lines.map((line, i) => `<span>${escapeHtml(line)}${i < lines.length - 1 ? '\n' : ''}</span>`).join('');
  const indicator = language ? `<div><div data-testid="code-language-indicator" class="text-quiet bg-quiet py-xs px-sm inline-block rounded-br rounded-tl-lg text-xs font-thin">${escapeHtml(language)}</div></div>` : '';
  return (
    `<pre class="not-prose w-full rounded font-mono text-sm font-extralight"><div class="codeWrapper bg-subtle text-light my-md relative flex flex-col rounded-lg font-mono text-sm font-medium">` +
    `<div class="translate-y-xs -translate-x-xs bottom-xl mb-xl flex h-0 items-start justify-end sm:sticky sm:top-xs"><div class="overflow-hidden rounded-full"><div class="bg-subtle">` +
    `<button data-testid="copy-code-button" aria-label="Copy code" type="button" class="text-quiet rounded-full h-8 aspect-square" data-state="closed">` +
    `<div class="flex items-center min-w-0 gap-two justify-center">${spriteIcon('copy')}</div></button></div></div></div>` +
    `<div class="-mt-xl">${indicator}<div><span><code>${spans}</code></span></div></div></div></pre>`
  );
}

/** Wires each code block's own copy button to copy that block's code. */
function wireCodeCopies(root: HTMLElement): void {
  for (const copy of Array.from(root.querySelectorAll('button[data-testid="copy-code-button"]'))) {
    const code = copy.closest('.codeWrapper')?.querySelector('code');
    copy.addEventListener('click', () => void navigator.clipboard.writeText(code?.textContent ?? ''));
  }
}

const perplexity: Skin = {
  attach: perplexityAttach,
  renderCode,
  // An answer's link, as the real page of 2026-05 has it.
  linkAttributes: { rel: 'nofollow noopener', class: 'reset interactable cursor-pointer decoration-1 underline-offset-1 text-super hover:underline', target: '_blank' },
  mount(root) {
    document.head.append(el('style', {}, STYLE));
    const boot = window.__SIM_BOOT;
    const finalText = boot.layout === 'final-text';
    /** The zero state (home, no thread yet) versus a thread with a follow-up composer. */
    let inThread = boot.history.length > 0;
    let answers = 0;

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

    const addFiles = el('button', { type: 'button', 'aria-label': 'Add files or tools' }, '+');
    const voice = button('Use voice mode', WAVE_ICON, { class: 'bg-super text-inverse rounded-full' });
    const sendButton = button('Submit', spriteIcon('arrow-up'), { 'data-testid': 'submit-button', class: 'bg-super text-inverse rounded-full' });
    const stopButton = button('Stop', spriteIcon('player-stop-filled'), { 'data-testid': 'stop-button', class: 'bg-super text-inverse rounded-full' });
    const slot = el('div', { class: 'flex items-center' });
    let shown = '';

    const toolbar = el(
      'div',
      { class: 'flex items-center justify-between' },
      el(
        'div',
        { class: 'flex items-center gap-2' },
        addFiles,
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
    const sprite = el('div', {});
    sprite.innerHTML = SPRITE;
    let entry: HTMLElement | null = null;

    root.append(el('div', { id: '__next' }, sprite, sidebar, el('main', {}, home, thread, notices, composerBox)));

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

    /** The answer's actions row, once streamed; its Copy copies the answer's Markdown. */
    const actions = (copies: string) => {
      if (!finalText) return labelledActions(copies);
      const copy = iconButton('copy');
      copy.addEventListener('click', () => void navigator.clipboard.writeText(copies));
      return el(
        'div',
        { class: 'flex items-center justify-between', 'data-workflow-text-footer': '' },
        el('div', { class: 'flex items-center gap-1' }, iconButton('share'), iconButton('repeat'), copy),
        el('div', { class: 'flex items-center gap-1' }, iconButton('cpu'), iconButton('thumb-up'), iconButton('thumb-down'), iconButton('dots')),
      );
    };
    /** The actions row of the real pages of 2026-04/-05: the same icons, each button labelled. */
    const labelledActions = (copies: string) => {
      const labelled = (label: string, icon: string) => {
        const b = iconButton(icon);
        b.setAttribute('aria-label', label);
        return b;
      };
      const copy = labelled('Copy', 'copy');
      copy.addEventListener('click', () => void navigator.clipboard.writeText(copies));
      return el(
        'div',
        { class: 'flex items-center justify-between' },
        el('div', { class: '-ml-sm gap-xs flex flex-shrink-0 items-center' }, labelled('Share', 'share'), labelled('Download', 'download'), copy, labelled('Rewrite Thread', 'repeat')),
        el('div', { class: 'gap-x-xs flex flex-shrink-0 items-center' }, labelled('Helpful', 'thumb-up'), labelled('Not helpful', 'thumb-down'), labelled('More actions', 'dots')),
      );
    };

    return {
      fileSlots: { input: fileInput as HTMLInputElement, button: addFiles },
      composer,
      sendButton,
      stopButton,
      setMode: setSlot,
      addUserTurn(text) {
        if (!inThread) document.title = text.slice(0, 80);
        enterThread();
        // The question's Edit and Copy (icons; labelled "Edit query" and "Copy query" on the real
        // page of 2026-05, unlabelled in the 2026-10 renderer), then its title block holding the
        // question, the thread's h1; the 2026-10 renderer numbers each question's block
        // (`data-workflow-entry`, research 2026-11-26, fixtures).
        const labelled = (label: string, icon: string) => {
          const b = iconButton(icon);
          if (!finalText) b.setAttribute('aria-label', label);
          return b;
        };
        const copy = labelled('Copy query', 'copy');
        copy.addEventListener('click', () => void navigator.clipboard.writeText(text));
        entry = el('div', { class: 'thread-entry border-b', ...(finalText ? { 'data-workflow-entry': String(answers) } : {}) });
        entry.append(
          el(
            'div',
            { class: 'flex flex-col' },
            el('div', { class: 'flex items-center gap-1' }, labelled('Edit query', 'pencil'), copy),
            el(
              'div',
              { class: 'group/title relative inline-flex flex-col' },
              el('h1', { class: 'query group/query group/user-bubble' }, el('span', { class: 'select-text whitespace-pre-line break-words' }, text)),
            ),
          ),
        );
        thread.append(entry);
      },
      addAssistantTurn() {
        const index = answers++;
        const prose = () => el('div', { class: 'prose dark:prose-invert inline leading-relaxed break-words min-w-0', 'data-renderer': 'lm' });
        let body = finalText ? prose() : el('div', { 'data-renderer': 'lm' });
        // Invented: a progress line while the answer is being worked on, outside the answer.
        const progress = el('div', { class: 'workflow-progress text-quiet' }, 'Searching…');
        // The real pages of 2026-04/-05 nest the anchor three boxes deep in the column, and the
        // renderer's box inside `.prose`.
        const answer = finalText
          ? body
          : el(
              'div',
              {},
              el(
                'div',
                { class: 'relative font-sans text-base text-foreground' },
                el(
                  'div',
                  { class: 'min-w-0 break-words' },
                  el(
                    'div',
                    { id: `markdown-content-${index}`, class: 'gap-y-md' },
                    el('div', { class: 'has-inline-images my-2' }, el('div', {}, el('div', { class: 'prose dark:prose-invert inline leading-relaxed break-words min-w-0' }, body))),
                  ),
                ),
              ),
            );
        const column = el('div', { class: 'gap-y-sm flex flex-col' }, progress, answer);
        (entry ?? thread).append(column);
        let html = '';

        const done = (copies: string) => {
          progress.remove();
          if (finalText) {
            // React renders the streamed answer anew inside the final-text wrapper: the
            // element that streamed is gone, a new one holds the same answer.
            const settled = prose();
            settled.innerHTML = html;
            wireCodeCopies(settled);
            body.replaceWith(el('div', { 'data-workflow-final-text': '', class: 'relative font-sans text-base' }, settled));
            body = settled;
          }
          column.append(actions(copies));
        };

        const turn: AssistantTurn = {
          render(next) {
            progress.textContent = 'Writing answer…';
            html = next;
            body.innerHTML = html;
            wireCodeCopies(body);
          },
          finish(md) {
            done(md);
            const related = ['Tell me more', 'What are the alternatives?', 'Can you give an example?'];
            column.after(
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
            column.append(
              el('div', { role: 'alert', class: 'answer-error text-caution' }, el('span', {}, 'Something went wrong. Please try again later.'), el('button', { type: 'button' }, 'Retry')),
            );
          },
          // Invented: on the real site a refusal reads like any answer. Here the answer holds
          // the words and a notice beside it marks the refusal; the turn completes as usual.
          refuse(text) {
            html = `<p>${escapeHtml(text)}</p>`;
            body.innerHTML = html;
            done(text);
            column.append(el('div', { 'data-testid': 'answer-refusal-notice', class: 'text-quiet' }, 'This request was declined under the usage policy.'));
          },
          stopped() {
            progress.remove();
          },
        };
        return turn;
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
