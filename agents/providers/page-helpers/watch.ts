/**
 * In the page: watching the new turn until it ends — the provider's finished signal (or its
 * stop control gone and the text settled), an error card, a refusal, a limit banner, a login
 * wall or a challenge — or saying which role no cue finds, so the agent fails fast.
 */
import type { Helpers, TurnOutcome } from './types.js';

export function addWatch(h: Helpers): void {
  h.watchTurn = (pack, scope, limits) =>
    new Promise<TurnOutcome>((resolve) => {
      const started = performance.now();
      let working = false;
      let lastText: string | null = null;
      let lastChange = started;
      /** When the page last said it was thinking: the waits for an answer to appear count from then. */
      let thoughtAt = started;
      let timer = 0;

      const check = (): TurnOutcome | null => {
        const now = performance.now();
        const blocked = h.blocker(pack);
        if (blocked) return blocked;
        const stopShown = h.find(pack.stop) !== null;
        working ||= stopShown;
        const turn = h.newTurn(pack);
        if (!turn) {
          // A page-wide error, never an earlier turn's words or its old error card.
          const pageError = h.find(pack.errorCard, document, h.conversation(pack).beside);
          if (pageError) return { kind: 'errorCard', text: h.textOf(pageError) };
          // A long-thinking mode (pro, research) says it is thinking for minutes before any
          // answer: no hang while it does (the attempt's timeout and deadline still bound it).
          if (stopShown && h.find(pack.thinking)) thoughtAt = now;
          const limit = stopShown ? limits.appearWorkingMs : limits.appearMs;
          if (now - thoughtAt >= limit) {
            const why = working ? 'the page is answering, but no cue finds the answer' : 'no answer appeared after sending';
            return { kind: 'missing', role: 'assistantTurn', detail: why };
          }
          return null;
        }
        const root = h.scopeOf(pack, turn, scope);
        for (const role of ['errorCard', 'refusal'] as const) {
          const el = h.inScope(turn, pack[role], root);
          if (el) return { kind: role, text: h.textOf(el) };
        }
        if (h.inScope(turn, pack.finished, root)) return { kind: 'finished', by: 'marker' };
        // Without the provider's own signal: the stop control gone and the text settled.
        const parts = h.answerParts(pack, turn);
        const text = (parts.length > 0 ? parts : [turn]).map((part) => part.textContent ?? '').join('\n');
        if (text !== lastText) {
          lastText = text;
          lastChange = now;
        }
        // An interim paragraph ("I'll research … first") sits still before the answer: never the answer.
        const interim = h.inScope(turn, pack.interim, root) !== null;
        if (!stopShown && !interim && text.trim() !== '' && now - lastChange >= limits.settleMs) return { kind: 'finished', by: 'settled' };
        return null;
      };

      const settle = (outcome: TurnOutcome) => {
        observer.disconnect();
        window.clearTimeout(timer);
        resolve(outcome);
      };
      /** Checks now, and again when the next time limit could pass with nothing changing in the page. */
      const run = () => {
        const outcome = check();
        if (outcome) return settle(outcome);
        window.clearTimeout(timer);
        const now = performance.now();
        const next = Math.min(thoughtAt + limits.appearWorkingMs, lastChange + limits.settleMs, thoughtAt + limits.appearMs);
        timer = window.setTimeout(run, Math.max(50, (next > now ? next - now : limits.settleMs) + 20));
      };
      const observer = new MutationObserver(run);
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      run();
    });
}
