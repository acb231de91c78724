/**
 * ChatGPT's app-shell build, the renderer of the freshest live observations
 * (research/providers-live-2026.md C1, C2, C4, C7, C8: 2026-09-24 to 2026-10-09):
 * - no `article`, no `conversation-turn` test ids, no `[data-message-author-role]`, no
 *   `.markdown`: one `[data-turn-key]` element per exchange (the key is the user message's
 *   id) holds `[data-talvt-turn-state]` (`in_progress`, then `complete`; it stays
 *   `in_progress` after Stop and sometimes after the answer is done, C4), the user's unit
 *   (`[data-user-message-bubble]`) and the assistant's: a screen-reader-only
 *   `h4[data-conversation-role=assistant]` "ChatGPT said:" and the DIL answer
 *   `div[data-dil-message-id]` (`[data-markdown-text-style=assistant-message]`, a
 *   `_DilResponseRoot` class) inside `.puik-root.not-markdown`;
 * - `.turn-action-controls` without test ids for both halves: the user's "Copy message" /
 *   "Edit message" from the start, the answer's "Copy", ratings, Share and two
 *   `aria-haspopup=menu` buttons once it is done (C8);
 * - the composer `form[data-chatgpt-composer]` with a ProseMirror
 *   `[data-composer-markdown][role=textbox]` and no `#prompt-textarea`; one slot that is
 *   `button[type=submit][aria-label=Send]` with text and `button[type=button][aria-label=Stop]`
 *   while streaming, both localized, no test ids (C1, C3);
 * - errors as `aside[role=alert]` in the turn with a Retry action, usage caps the same way
 *   (the inline conversation error, C4); the safety review as a `role=status` notice that
 *   is not an error (C4);
 * - a Chat/Work toggle of `button[aria-pressed]` (C3, #69042987250).
 */
import { richComposer } from '../composers.js';
import { el, show } from '../dom.js';
import { escapeHtml } from '../markdown.js';
import type { SkinUi } from '../skin.js';
import { loginWall } from './chatgpt-article.js';
import { answerSlot, copyCodeBlocks, moveIntoProject, openCanvas, sendGate, type Candidate, type promptWatcher } from './chatgpt-parts.js';
import type { ChatGptWords } from './chatgpt-words.js';

const STOP_GLYPH =
  '<svg width="20" height="20" viewBox="0 0 20 20" class="icon-primary-action" aria-hidden="true"><path d="M4.5 5.75C4.5 5.05964 5.05964 4.5 5.75 4.5H14.25C14.9404 4.5 15.5 5.05964 15.5 5.75V14.25C15.5 14.9404 14.9404 15.5 14.25 15.5H5.75C5.05964 15.5 4.5 14.9404 4.5 14.25V5.75Z"></path></svg>';
const SEND_GLYPH = '<svg width="20" height="20" viewBox="0 0 20 20" class="icon" aria-hidden="true"><path d="M10 3l6 6h-4v8H8V9H4z"></path></svg>';

/** Where the page remembers the composer mode, as the site keeps it between visits. */
const MODE_KEY = 'sim.chatgpt.composer-mode';

/** The stream renders an answer in 12 steps (app.ts); the safety review lasts half of them. */
const REVIEW_RENDERS = 6;

export function mountAppShell(root: HTMLElement, prompts: ReturnType<typeof promptWatcher>, words: ChatGptWords): SkinUi {
  document.documentElement.lang = words.lang;
  const thread = el('div', { class: 'flex flex-col text-sm pb-25' });
  copyCodeBlocks(thread);

  const editor = el('div', {
    class: 'ProseMirror',
    contenteditable: 'true',
    role: 'textbox',
    'aria-multiline': 'true',
    'data-composer-markdown': 'true',
    translate: 'no',
  });
  const addContext = el('button', { type: 'button', 'data-composer-navigation-target': 'add-context', 'aria-label': words.addContext, class: 'composer-btn' }, '+');
  const model = el('button', { type: 'button', 'data-codex-intelligence-trigger': 'true', 'aria-haspopup': 'menu', 'aria-expanded': 'false', class: 'composer-pill' }, words.model);
  const voice = el('button', { type: 'button', 'aria-label': words.voice, class: 'composer-btn' }, '🎙');
  const submit = el('button', { type: 'submit', 'aria-label': words.send, class: 'composer-submit-button-color size-token-button-composer' }) as HTMLButtonElement;
  submit.innerHTML = SEND_GLYPH;
  const stopper = el('button', { type: 'button', 'aria-label': words.stop, class: 'composer-secondary-button-color size-token-button-composer' });
  stopper.innerHTML = STOP_GLYPH;
  const form = el('form', { 'data-chatgpt-composer': '', 'data-type': 'unified-composer', class: 'w-full' }, editor, addContext, model, voice, submit, stopper);
  form.addEventListener('submit', (e) => e.preventDefault());
  const composer = richComposer(editor, words.placeholder);
  const gate = sendGate(editor, submit);

  // Chat/Work: in Work mode a prompt starts a task, not a chat answer (nothing reaches the
  // chat backend, no assistant message ever shows); the flow must switch to Chat first.
  const chat = el('button', { type: 'button', 'aria-pressed': 'true', class: 'mode-toggle' }, words.chat);
  const work = el('button', { type: 'button', 'aria-pressed': 'false', class: 'mode-toggle' }, words.work);
  let composerMode: 'chat' | 'work' = 'chat';
  const setComposerMode = (next: 'chat' | 'work') => {
    composerMode = next;
    chat.setAttribute('aria-pressed', String(next === 'chat'));
    work.setAttribute('aria-pressed', String(next === 'work'));
    localStorage.setItem(MODE_KEY, next);
  };
  setComposerMode(localStorage.getItem(MODE_KEY) === 'work' ? 'work' : 'chat');
  chat.addEventListener('click', () => setComposerMode('chat'));
  work.addEventListener('click', () => setComposerMode('work'));

  const abovePortal = el('div', { 'data-above-composer-portal': '' });
  root.append(
    el(
      'div',
      { class: 'flex h-full w-full flex-col' },
      el(
        'main',
        { id: 'main', class: 'relative h-full w-full flex-1' },
        el('div', { id: 'thread' }, thread),
        el(
          'div',
          { id: 'thread-bottom-container' },
          abovePortal,
          el('div', { role: 'group', 'aria-label': words.composerMode, class: 'flex gap-1' }, chat, work),
          form,
        ),
      ),
    ),
  );

  /** The exchange being shown: its key, its turn-state element, and whether it has an answer yet. */
  let latest: { key: string; state: HTMLElement; answered: boolean } | null = null;
  const exchange = (prompt: string) => {
    const key = crypto.randomUUID();
    const copyPrompt = el('button', { type: 'button', 'aria-label': words.copyMessage }, '⧉');
    copyPrompt.addEventListener('click', () => void navigator.clipboard.writeText(prompt));
    const user = el(
      'div',
      { 'data-content-search-unit-key': `${key}:user`, 'data-chatgpt-search-message-ids': key },
      el('h5', { class: 'sr-only' }, words.youSaid),
      el('div', { 'data-user-message-bubble': 'true', class: 'bg-user-message text-user-message' }, el('div', { class: 'whitespace-pre-wrap' }, prompt)),
      el('div', { class: 'turn-action-controls flex' }, copyPrompt, el('button', { type: 'button', 'aria-label': words.editMessage }, '✎')),
    );
    const state = el('div', { class: 'group flex flex-col', 'data-talvt-turn-state': 'in_progress' }, user);
    thread.append(el('div', { 'data-turn-key': key, 'data-content-search-turn-key': key, class: 'text-token-text-primary w-full' }, state));
    latest = { key, state, answered: false };
    return latest;
  };

  const dil = (): Candidate => {
    const id = crypto.randomUUID();
    const body = el('div', {
      'data-dil-message-id': id,
      'data-dil-source-message-id': id,
      'data-markdown-text-style': 'assistant-message',
      class: 'DilRenderer-tB76Jj _DilResponseRoot_HfQrEh Reveal-k2IWvM',
    });
    return { element: el('div', { class: 'puik-root not-markdown' }, body), body };
  };

  const startTask = (event: Event) => {
    if (composerMode !== 'work') return;
    event.preventDefault();
    event.stopImmediatePropagation();
    const prompt = composer.read();
    if (!prompt.trim()) return;
    composer.clear();
    const { state } = exchange(prompt);
    state.append(el('div', { 'data-chatgpt-agent-turn-start': '' }, el('div', { role: 'status', 'aria-live': 'polite' }, words.working)));
  };
  // Registered before the engine's listeners (app.ts), so a Work-mode send goes no further.
  submit.addEventListener('click', startTask);
  editor.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) startTask(event);
  });

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
      prompts.user(text);
      exchange(text);
    },
    addAssistantTurn() {
      const asks = prompts.current;
      if (asks.live && asks.project) moveIntoProject();
      const turn = latest!;
      turn.answered = true;
      const single = dil();
      const unit = el(
        'div',
        { 'data-content-search-unit-key': `${turn.key}:assistant`, 'data-chatgpt-search-message-ids': single.body.getAttribute('data-dil-message-id')! },
        el('h4', { class: 'sr-only m-0 select-none', 'data-conversation-role': 'assistant' }, words.chatgptSaid),
      );
      const review = asks.live && asks.review ? el('div', { role: 'status', 'aria-live': 'polite', class: 'text-chatgpt-review' }, el('span', {}, words.review)) : null;
      if (review) unit.append(review);
      unit.append(single.element);
      turn.state.append(unit);
      const complete = () => {
        if (!asks.stale) turn.state.setAttribute('data-talvt-turn-state', 'complete');
      };
      const actions = (md: string) => {
        const copy = el('button', { type: 'button', 'aria-label': words.copy }, '⧉');
        copy.addEventListener('click', () => void navigator.clipboard.writeText(md));
        unit.append(
          el(
            'div',
            { class: 'turn-action-controls flex' },
            copy,
            el('button', { type: 'button', 'aria-label': words.good }, '👍'),
            el('button', { type: 'button', 'aria-label': words.bad }, '👎'),
            el('button', { type: 'button', 'aria-label': words.share }, '↗'),
            el('button', { type: 'button', 'aria-label': words.switchModel, 'aria-haspopup': 'menu', 'aria-expanded': 'false' }, '↻'),
            el('button', { type: 'button', 'aria-label': words.more, 'aria-haspopup': 'menu', 'aria-expanded': 'false' }, '⋯'),
          ),
        );
        if (asks.canvas) openCanvas(root, words);
        if (asks.live && asks.work) setComposerMode('work');
      };
      const slot = answerSlot({ words, container: unit, single, candidate: dil, ab: asks.live && asks.ab, gate: (open) => gate.set(open), finished: actions });
      let renders = 0;
      return {
        render(html) {
          if (++renders === REVIEW_RENDERS) review?.remove();
          slot.render(html);
        },
        finish(md) {
          review?.remove();
          complete();
          slot.finish(md);
        },
        error() {
          // The turn keeps saying in_progress beside the alert (C4, "Resume stream unavailable").
          turn.state.append(el('aside', { role: 'alert', class: 'flex items-center gap-2' }, el('div', {}, words.networkError), el('button', { type: 'button' }, words.retry)));
        },
        refuse(text) {
          single.body.innerHTML = `<p>${escapeHtml(text)}</p>`;
          // Invented: the research shows no refusal markup; a policy note beside the answer.
          unit.append(el('div', { class: 'text-token-text-secondary text-xs' }, words.policy));
          complete();
        },
        stopped() {
          // Stop ends the stream but not the turn state: it stays in_progress (C4).
        },
      };
    },
    showLoginWall() {
      root.append(loginWall());
    },
    showLimitBanner(text) {
      // A usage cap is the inline conversation error of the unanswered turn.
      const alert = el('aside', { role: 'alert', class: 'flex items-center gap-2' }, el('div', {}, text));
      if (latest && !latest.answered) latest.state.append(alert);
      else abovePortal.replaceChildren(alert);
    },
  };
}
