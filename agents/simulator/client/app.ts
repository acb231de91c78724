/**
 * The behaviour every simulated provider shares, running in the page: sending a prompt,
 * streaming the answer over time with the stop control shown, the finished-turn signal,
 * conversation URLs, and the directive-driven failures (error card, refusal, limit banner,
 * login wall, challenge, reasoning pause, hang).
 */
import { accountNotices } from './account-notices.js';
import { attachments } from './attachments.js';
import { chatTitles } from './chat-titles.js';
import { consentBanner } from './consent-banner.js';
import { upsellBanner } from './upsell-banner.js';
import { withDrift } from './drift.js';
import { pastedFiles } from './pasted-file.js';
import { renderMarkdown } from './markdown.js';
import type { AssistantTurn, Boot, ComposerMode, Plan, Skin } from './skin.js';
import { variantPicker } from './variant-picker.js';

declare global {
  interface Window {
    __SIM_BOOT: Boot;
  }
}

const STEPS = 12;

const INTERIM_TEXT = "I'll research the primary sources first, then put together a thorough answer.";

export function startApp(skin: Skin): void {
  const boot = window.__SIM_BOOT;
  const ui = withDrift(boot.drift, skin.mount(document.body));
  // The site's file controls (attachments.ts); a change in them may change what Send shows.
  const uploads = attachments(skin.attach, ui, () => refreshMode());
  /** The skin's mode, then Send held disabled while a file uploads. */
  const setMode = (mode: ComposerMode) => {
    ui.setMode(mode);
    uploads.modeSet(mode);
  };
  const render = (md: string) => renderMarkdown(md, skin);
  let conversationId = boot.conversationId;
  let generating: { stop(): void } | null = null;

  for (const turn of boot.history) {
    ui.addUserTurn(turn.prompt);
    const t = ui.addAssistantTurn();
    t.render(render(turn.markdown));
    t.finish(turn.markdown);
  }

  // A limited account sees the notice as soon as the page opens, not only after a send.
  if (boot.limitResetAt) ui.showLimitBanner(limitText(boot.limitResetAt));
  const notices = accountNotices((kind, button) => void post('/__sim/dismiss', { kind, button }));
  if (boot.notice) notices.show(boot.notice);
  if (boot.upsell) upsellBanner();
  if (boot.consent) consentBanner(ui.composer.element, (choice) => void post('/__sim/consent', { choice }));
  const files = boot.pasteToFileAt === null ? null : pastedFiles(ui.composer.element, boot.pasteToFileAt);
  const titles = chatTitles(boot);
  const picker = variantPicker(
    boot.provider,
    boot.layout,
    boot.variants,
    () => void post('/__sim/pick-variant', {}),
    () => void post('/__sim/ignored-picker-click', {}),
  );

  // Finished files alone can be sent, as on the real sites.
  const refreshMode = () => {
    if (!generating) setMode(ui.composer.read().trim() || uploads.ready || uploads.busy ? 'ready' : 'empty');
  };
  ui.composer.element.addEventListener('input', refreshMode);
  refreshMode();

  /**
   * `[[sim:send-busy=MS]]`: the page works on a send for MS before it takes it, the prompt
   * still in the composer and the send control disabled. A press meanwhile is the same prompt
   * sent again, as on a site that queues it (reported as a repeat).
   */
  let working: string | null = null;
  const send = () => {
    const prompt = ui.composer.read();
    // Send is disabled while a file uploads: a press or Enter does nothing.
    if (uploads.busy) return;
    if (working !== null) return void post('/__sim/repeat', { conversationId, prompt });
    const busyMs = Number(/\[\[sim:send-busy=(\d+)\]\]/.exec(prompt)?.[1] ?? 0);
    if (busyMs > 0 && !generating && !notices.open) {
      working = prompt;
      setMode('empty');
      window.setTimeout(() => {
        working = null;
        take(prompt);
      }, busyMs);
      return;
    }
    take(prompt);
  };

  const take = (prompt: string) => {
    // An account notice over the page takes the send; an empty composer sends only a file.
    if (generating || notices.open || (!prompt.trim() && !files?.pending && !uploads.ready)) return;
    const attachment = files?.take() ?? null;
    const uploaded = uploads.take();
    ui.composer.clear();
    ui.addUserTurn(prompt);
    setMode('generating');
    if (!conversationId && boot.paths.transient) {
      history.replaceState(null, '', boot.paths.transient.replace('{id}', Math.random().toString(36).slice(2, 10)));
    }
    const local = { stopped: false, stop: () => {} };
    generating = local;
    void post<Plan>('/__sim/send', { conversationId, prompt, attachment, draft: uploaded.draft, files: uploaded.files, signedIn: boot.signedIn, variant: picker.inForce() }).then((plan) => {
      if (!local.stopped) play(plan, local);
    });
  };

  const stop = () => {
    generating?.stop();
  };

  const settle = () => {
    generating = null;
    refreshMode();
  };

  const play = (plan: Plan, local: { stopped: boolean; stop: () => void }) => {
    // Cloudflare challenged the site's own API call: the site reloads, and Cloudflare
    // answers the reload with its interstitial (the site server's cloudflare.ts).
    if (plan.kind === 'challenge') return location.reload();
    if (plan.kind === 'logout') {
      ui.showLoginWall();
      return settle();
    }
    if (plan.kind === 'limit') {
      ui.showLimitBanner(limitText(plan.limitResetAt!));
      return settle();
    }
    if (plan.kind === 'rate-limit' || plan.kind === 'lock') {
      notices.show(plan.kind);
      return settle();
    }
    if (plan.thinkFirstMs) {
      picker.thinking(true);
      const thought = window.setTimeout(() => {
        picker.thinking(false);
        play({ ...plan, thinkFirstMs: 0 }, local);
      }, plan.thinkFirstMs);
      local.stop = () => {
        local.stopped = true;
        window.clearTimeout(thought);
        picker.thinking(false);
        settle();
      };
      return;
    }
    // An anonymous page's answer gets no conversation: the address stays the new chat's.
    let address: (() => void) | null = null;
    if (!conversationId && plan.conversationId) {
      conversationId = plan.conversationId;
      const id = conversationId;
      address = () => history.replaceState(null, '', boot.paths.conversation.replace('{id}', id));
      // A provisional route (ChatGPT's `/c/local-…`) holds until the answer is done.
      if (!boot.provisionalUntilDone) address();
    }
    const turn: AssistantTurn = ui.addAssistantTurn();
    const timers: number[] = [];
    const later = (ms: number, fn: () => void) => timers.push(window.setTimeout(fn, ms));
    local.stop = () => {
      local.stopped = true;
      timers.forEach(clearTimeout);
      turn.stopped();
      void post('/__sim/stop', { conversationId, turn: plan.turn });
      settle();
    };
    // The stop control stays up: the page never settles.
    if (plan.kind === 'error' && plan.stuck) return later(Math.min(plan.ms, 150), () => turn.render('<p>Something went wrong. Please try again.</p>'));
    if (plan.kind === 'error') {
      return later(Math.min(plan.ms, 150), () => {
        turn.error();
        settle();
      });
    }
    if (plan.kind === 'refuse') {
      return later(Math.min(plan.ms, 150), () => {
        turn.refuse(plan.markdown);
        settle();
      });
    }
    // A generated file: its card, and no words (invented markup; a download link, as file cards have).
    if (plan.file) {
      return later(Math.min(plan.ms, 150), () => {
        turn.render(`<div class="file-card"><span class="file-name">${plan.file}</span> <span>PDF</span> <a download="${plan.file}" href="#">Download</a></div>`);
        turn.finish('');
        settle();
      });
    }
    // Stream in steps; halfway, a reasoning pause shows nothing changing (not even the stop
    // control: the trap that catches "stop gone and text stable" completion checks).
    const step = plan.ms / STEPS;
    let at = 0;
    // A research answer's interim paragraph: complete-looking, still, Stop hidden (the worst
    // case the research names), then replaced by the answer as it streams.
    if (plan.interimMs > 0) {
      turn.render(`<p>${INTERIM_TEXT}</p>`);
      setMode('empty');
      at += plan.interimMs;
      later(at, () => setMode('generating'));
    }
    for (let i = 1; i <= STEPS; i++) {
      const upto = Math.round((plan.markdown.length * i) / STEPS);
      if (i === STEPS / 2 + 1 && plan.thinkMs > 0) {
        later(at, () => setMode('paused'));
        at += plan.thinkMs;
        later(at, () => setMode('generating'));
      }
      if (plan.hang && i > STEPS / 2) break;
      at += step;
      later(at, () => turn.render(render(plan.markdown.slice(0, upto))));
    }
    if (!plan.hang) {
      later(at, () => {
        if (plan.hydrateEmpty) turn.render('');
        turn.finish(plan.hydrateEmpty ? '' : plan.markdown);
        settle();
        if (plan.conversationId && plan.title) titles.named(plan.conversationId, plan.title);
        if (boot.provisionalUntilDone && address) later(300, address);
        // The page's own clock (the machine's): when the answer showed finished.
        void post('/__sim/done', { conversationId, turn: plan.turn, at: Date.now() });
      });
    }
  };

  // A conversation reopened while the site still writes its last answer shows it going on.
  if (boot.answering) {
    ui.addUserTurn(boot.answering.prompt);
    setMode('generating');
    const local = { stopped: false, stop: () => {} };
    generating = local;
    play(boot.answering.plan, local);
  }

  ui.sendButton.addEventListener('click', send);
  ui.stopButton.addEventListener('click', stop);
  ui.composer.element.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    }
  });
}

function limitText(resetAt: number): string {
  const at = new Date(resetAt).toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' });
  return `You've reached your usage limit. Try again after ${at}.`;
}

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as T;
}
