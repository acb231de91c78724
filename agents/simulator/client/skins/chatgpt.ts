/**
 * ChatGPT's DOM contract (research/providers.md §2): a ProseMirror composer
 * `#prompt-textarea`; one submit slot that is the voice button while empty, the send button
 * (`data-testid="send-button"`) with text and the stop button (`data-testid="stop-button"`)
 * while streaming; turns as `article[data-testid^="conversation-turn"]` holding
 * `[data-message-author-role]` and `.markdown`; the finished turn's action bar with
 * `copy-turn-action-button`; errors as `.text-token-text-error` with a Retry button.
 */
import { startApp } from '../app.js';
import { richComposer } from '../composers.js';
import { el, show } from '../dom.js';
import type { Skin } from '../skin.js';

const chatgpt: Skin = {
  mount(root) {
    let turns = 0;
    const thread = el('div', { class: 'flex flex-col text-sm', role: 'presentation' });
    const editor = el('div', { id: 'prompt-textarea', class: 'ProseMirror', contenteditable: 'true', 'data-virtualkeyboard': 'true' });
    const hidden = el('textarea', { name: 'prompt-textarea', style: 'display:none' });
    const voice = el('button', { type: 'button', 'data-testid': 'composer-speech-button', 'aria-label': 'Start voice mode' }, '🎙');
    const submit = el('button', { type: 'button', id: 'composer-submit-button', class: 'composer-submit-btn' });
    const stopper = el('button', { type: 'button', id: 'composer-stop-button', 'data-testid': 'stop-button', 'aria-label': 'Stop streaming' }, '■');
    submit.setAttribute('data-testid', 'send-button');
    submit.setAttribute('aria-label', 'Send prompt');
    submit.textContent = '↑';
    const form = el('form', { 'data-type': 'unified-composer', class: 'w-full' }, editor, hidden, voice, submit, stopper);
    form.addEventListener('submit', (e) => e.preventDefault());
    const banner = el('div', { class: 'banner-slot' });
    root.append(el('div', { id: '__next' }, el('main', { class: 'relative h-full' }, thread, banner, form)));
    const composer = richComposer(editor, 'Ask anything');

    const article = (role: 'user' | 'assistant', body: HTMLElement) => {
      turns++;
      const message = el('div', { 'data-message-author-role': role, 'data-message-id': `msg-${turns}` }, body);
      const a = el('article', { 'data-testid': `conversation-turn-${turns}`, 'data-turn': role, class: 'w-full' }, message);
      thread.append(a);
      return { article: a, message };
    };

    return {
      composer,
      sendButton: submit,
      stopButton: stopper,
      setMode(mode) {
        show(voice, mode === 'empty');
        show(submit, mode === 'ready');
        show(stopper, mode === 'generating');
      },
      addUserTurn(text) {
        article('user', el('div', { class: 'whitespace-pre-wrap' }, text));
      },
      addAssistantTurn() {
        const markdown = el('div', { class: 'markdown prose w-full break-words' });
        const { article: a, message } = article('assistant', markdown);
        return {
          render(html) {
            markdown.innerHTML = html;
          },
          finish(md) {
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
          },
          error() {
            message.append(
              el('div', { class: 'text-token-text-error border-token-border-error' }, 'Something went wrong while generating the response. If this issue persists please contact us.'),
              el('button', { 'data-testid': 'regenerate-thread-error-button' }, 'Retry'),
            );
          },
          refuse(text) {
            markdown.innerHTML = `<p>${text}</p>`;
            message.append(el('div', { class: 'content-policy-notice text-token-text-secondary' }, 'This content may violate our usage policies.'));
          },
          stopped() {},
        };
      },
      showLoginWall() {
        root.append(
          el(
            'div',
            { role: 'dialog', 'data-testid': 'login-modal' },
            el('h2', {}, 'Log in to get answers based on saved chats'),
            el('a', { href: '/auth/login', 'data-testid': 'login-button' }, 'Log in'),
            el('a', { href: '/auth/login?signup=1', 'data-testid': 'signup-button' }, 'Sign up for free'),
          ),
        );
      },
      showLimitBanner(text) {
        banner.replaceChildren(el('div', { role: 'alert', class: 'limit-banner' }, text));
      },
    };
  },
};

startApp(chatgpt);
