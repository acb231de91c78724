/**
 * ChatGPT's `section` layout (live since 2026-03: research/providers-live-2026.md C5, C6;
 * saypi-userscript#384 "verified live 2026-06-20"): the turn element changed from
 * `<article>` to `<section>` and kept `data-testid="conversation-turn-N"`, `data-turn`,
 * `data-turn-id` and the inner `[data-message-author-role]` / `.markdown`; each turn sits
 * in its own `<div>` under a shared list. The answer's actions are a
 * `[role=group][aria-label="Response actions"]` with "Copy response"
 * (`copy-turn-action-button`). Code blocks are CodeMirror viewers (#62497009795). The
 * composer is still `#prompt-textarea` with test-id'd send and stop buttons.
 */
import { el } from '../dom.js';
import { escapeHtml } from '../markdown.js';
import type { SkinUi } from '../skin.js';
import { loginWall, promptTextareaForm } from './chatgpt-article.js';
import { answerSlot, copyCodeBlocks, moveIntoProject, openCanvas, type Candidate, type promptWatcher } from './chatgpt-parts.js';
import { CHATGPT_WORDS } from './chatgpt-words.js';

const words = CHATGPT_WORDS.en;

export function mountSection(root: HTMLElement, prompts: ReturnType<typeof promptWatcher>): SkinUi {
  let turns = 0;
  const thread = el('div', { class: 'flex flex-col text-sm @thread-xl/thread:pt-header-height' });
  copyCodeBlocks(thread);
  const { form, composer, submit, stopper, setMode, gate } = promptTextareaForm();
  const banner = el('div', { class: 'banner-slot' });
  root.append(el('div', { id: '__next' }, el('main', { class: 'relative h-full' }, thread, banner, form)));

  const section = (role: 'user' | 'assistant', label: HTMLElement) => {
    turns++;
    const s = el(
      'section',
      { 'data-testid': `conversation-turn-${turns}`, 'data-turn': role, 'data-turn-id': crypto.randomUUID(), 'data-scroll-anchor': 'false', class: 'text-token-text-primary w-full' },
      label,
    );
    thread.append(el('div', {}, s));
    return s;
  };
  const message = (): Candidate => {
    const body = el('div', { class: 'markdown prose dark:prose-invert w-full break-words light markdown-new-styling' });
    return { element: el('div', { 'data-message-author-role': 'assistant', 'data-message-id': crypto.randomUUID(), class: 'min-h-8 text-message' }, body), body };
  };

  return {
    composer,
    sendButton: submit,
    stopButton: stopper,
    setMode,
    addUserTurn(text) {
      prompts.user(text);
      section('user', el('h5', { class: 'sr-only' }, words.youSaid)).append(
        el('div', { 'data-message-author-role': 'user', 'data-message-id': crypto.randomUUID() }, el('div', { class: 'whitespace-pre-wrap' }, text)),
      );
    },
    addAssistantTurn() {
      const asks = prompts.current;
      if (asks.live && asks.project) moveIntoProject();
      const s = section('assistant', el('h6', { class: 'sr-only' }, words.chatgptSaid));
      const single = message();
      s.append(single.element);
      const actions = (md: string) => {
        const copy = el('button', { 'data-testid': 'copy-turn-action-button', 'aria-label': 'Copy response', class: 'text-token-text-secondary' }, '⧉');
        copy.addEventListener('click', () => void navigator.clipboard.writeText(md));
        s.append(
          el(
            'div',
            { class: 'z-0 flex min-h-[46px] justify-start' },
            el(
              'div',
              { role: 'group', 'aria-label': 'Response actions', class: 'flex flex-wrap items-center', tabindex: '-1' },
              copy,
              el('button', { 'data-testid': 'good-response-turn-action-button', 'aria-label': words.good }, '👍'),
              el('button', { 'data-testid': 'bad-response-turn-action-button', 'aria-label': words.bad }, '👎'),
              el('button', { 'aria-label': words.share }, '↗'),
            ),
          ),
        );
        if (asks.canvas) openCanvas(root, words);
      };
      const slot = answerSlot({ words, container: s, single, candidate: message, ab: asks.live && asks.ab, gate: (open) => gate.set(open), finished: actions });
      return {
        render: slot.render,
        finish: slot.finish,
        error() {
          single.element.append(
            el('div', { class: 'text-token-text-error border-token-border-error' }, 'Something went wrong while generating the response. If this issue persists please contact us.'),
            el('button', { 'data-testid': 'regenerate-thread-error-button' }, words.retry),
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
