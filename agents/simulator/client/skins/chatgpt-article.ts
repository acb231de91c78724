/**
 * ChatGPT's legacy layout (research/providers.md §2; still live for some accounts in 2026,
 * research/providers-live-2026.md): a ProseMirror composer `#prompt-textarea`; one submit
 * slot that is the voice button while empty, the send button (`data-testid="send-button"`)
 * with text and the stop button (`data-testid="stop-button"`) while streaming; turns as
 * `article[data-testid^="conversation-turn"]` holding `[data-message-author-role]` and
 * `.markdown`; the finished turn's action bar with `copy-turn-action-button`; errors as
 * `.text-token-text-error` with a Retry button. Code blocks are plain `<pre><code>`.
 */
import { richComposer } from '../composers.js';
import { el, show } from '../dom.js';
import { escapeHtml } from '../markdown.js';
import type { ComposerMode, SkinUi } from '../skin.js';
import { answerSlot, moveIntoProject, openCanvas, sendGate, type Candidate, type promptWatcher } from './chatgpt-parts.js';
import { CHATGPT_WORDS } from './chatgpt-words.js';

const words = CHATGPT_WORDS.en;

export function mountArticle(root: HTMLElement, prompts: ReturnType<typeof promptWatcher>): SkinUi {
  let turns = 0;
  const thread = el('div', { class: 'flex flex-col text-sm', role: 'presentation' });
  const { form, composer, submit, stopper, setMode, gate } = promptTextareaForm();
  const banner = el('div', { class: 'banner-slot' });
  root.append(el('div', { id: '__next' }, el('main', { class: 'relative h-full' }, thread, banner, form)));

  const article = (role: 'user' | 'assistant', ...body: HTMLElement[]) => {
    turns++;
    const a = el('article', { 'data-testid': `conversation-turn-${turns}`, 'data-turn': role, class: 'w-full' }, ...body);
    thread.append(a);
    return a;
  };
  const message = (): Candidate => {
    const body = el('div', { class: 'markdown prose w-full break-words' });
    return { element: el('div', { 'data-message-author-role': 'assistant', 'data-message-id': `msg-${crypto.randomUUID()}` }, body), body };
  };

  return {
    composer,
    sendButton: submit,
    stopButton: stopper,
    setMode,
    addUserTurn(text) {
      prompts.user(text);
      article('user', el('div', { 'data-message-author-role': 'user', 'data-message-id': `msg-${crypto.randomUUID()}` }, el('div', { class: 'whitespace-pre-wrap' }, text)));
    },
    addAssistantTurn() {
      const asks = prompts.current;
      if (asks.live && asks.project) moveIntoProject();
      const a = article('assistant');
      const actions = (md: string) => {
        const copy = el('button', { 'data-testid': 'copy-turn-action-button', 'aria-label': 'Copy', class: 'text-token-text-secondary' }, '⧉');
        copy.addEventListener('click', () => void navigator.clipboard.writeText(md));
        a.append(
          el(
            'div',
            { class: 'turn-actions flex' },
            copy,
            el('button', { 'data-testid': 'good-response-turn-action-button', 'aria-label': 'Good response' }, '👍'),
            el('button', { 'data-testid': 'bad-response-turn-action-button', 'aria-label': 'Bad response' }, '👎'),
            el('button', { 'aria-label': 'Share' }, '↗'),
          ),
        );
        if (asks.canvas) openCanvas(root, words);
      };
      const single = message();
      a.append(single.element);
      const slot = answerSlot({ words, container: a, single, candidate: message, ab: asks.live && asks.ab, gate: (open) => gate.set(open), finished: actions });
      return {
        render: slot.render,
        finish: slot.finish,
        error() {
          single.element.append(
            el('div', { class: 'text-token-text-error border-token-border-error' }, 'Something went wrong while generating the response. If this issue persists please contact us.'),
            el('button', { 'data-testid': 'regenerate-thread-error-button' }, 'Retry'),
          );
        },
        refuse(text) {
          single.body.innerHTML = `<p>${escapeHtml(text)}</p>`;
          single.element.append(el('div', { class: 'content-policy-notice text-token-text-secondary' }, words.policy));
        },
        stopped() {},
      };
    },
    showLoginWall() {
      root.append(loginWall());
    },
    showLimitBanner(text) {
      banner.replaceChildren(el('div', { role: 'alert', class: 'limit-banner' }, text));
    },
  };
}

/**
 * The composer of the layouts before the app-shell build: `#prompt-textarea` in the
 * unified composer form; the submit slot holds voice, send or stop.
 */
export function promptTextareaForm() {
  const editor = el('div', { id: 'prompt-textarea', class: 'ProseMirror', contenteditable: 'true', 'data-virtualkeyboard': 'true' });
  const hidden = el('textarea', { name: 'prompt-textarea', style: 'display:none' });
  const voice = el('button', { type: 'button', 'data-testid': 'composer-speech-button', 'aria-label': 'Start voice mode' }, '🎙');
  const submit = el('button', { type: 'button', id: 'composer-submit-button', class: 'composer-submit-btn', 'data-testid': 'send-button', 'aria-label': 'Send prompt' }, '↑') as HTMLButtonElement;
  const stopper = el('button', { type: 'button', id: 'composer-stop-button', 'data-testid': 'stop-button', 'aria-label': 'Stop streaming' }, '■');
  const form = el('form', { 'data-type': 'unified-composer', class: 'w-full' }, editor, hidden, voice, submit, stopper);
  form.addEventListener('submit', (e) => e.preventDefault());
  return {
    form,
    editor,
    composer: richComposer(editor, 'Ask anything'),
    submit,
    stopper,
    gate: sendGate(editor, submit),
    setMode(mode: ComposerMode) {
      show(voice, mode === 'empty');
      show(submit, mode === 'ready');
      show(stopper, mode === 'generating');
    },
  };
}

/** The logged-out dialog every layout shows (its test ids belong to the logged-out page). */
export function loginWall(): HTMLElement {
  return el(
    'div',
    { role: 'dialog', 'data-testid': 'login-modal' },
    el('h2', {}, 'Log in to get answers based on saved chats'),
    el('a', { href: '/auth/login', 'data-testid': 'login-button' }, 'Log in'),
    el('a', { href: '/auth/login?signup=1', 'data-testid': 'signup-button' }, 'Sign up for free'),
  );
}
