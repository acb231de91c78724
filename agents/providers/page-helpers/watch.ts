/**
 * In the page: watching the new turn until it ends — the provider's finished signal, an
 * error card, a refusal, a limit banner, a login wall or a challenge — or saying which role
 * no cue finds, so the agent fails fast. A finished answer comes with what the flow reads
 * next, taken in the same moment (types.ts `Finished`).
 *
 * An answer ends on the site's own finished signal (the pack's `finished` cues). A pause
 * can fake everything else: a reasoning model or a stalled connection leaves the answer
 * still, and some sites hide the stop control meanwhile. So without the signal an answer
 * ends only on evidence a pause cannot give: the answer's own controls (its action bar:
 * buttons and icons) appearing once the writing stopped, with the text still and the stop
 * control gone for `settleMs`. When the signal is expected (this agent saw it end an earlier
 * answer, or an earlier turn on the page shows it), its absence is news, and the evidence
 * must hold for `lostSignalMs` instead. Controls already there when the watch first looks (a
 * conversation reopened to collect its answer, a watch started again, a short answer done
 * before the watch began) may be done or may have come with the writing, paused: they too must
 * hold for `lostSignalMs`. With no evidence, the watch waits for as long as the attempt may
 * run: a still answer is never taken for a finished one.
 *
 * The page's own notices (a challenge, a lock, a login wall, a limit: `blocker`) come before
 * any end the turn shows. They are the costliest look (up to 4 ms on a captured Claude page,
 * bench/page-looks.ts) and the watch looks at each change of the page, which a streamed
 * answer makes up to once a frame: while the answer is written they are looked for at most
 * every BLOCKERS_EVERY_MS, and always before the watch ends on anything else.
 */
import type { FinishedBy, Helpers, MissingRole, TurnOutcome, TurnProblem } from './types.js';

export function addWatch(h: Helpers): void {
  /** How long a notice that comes while an answer is written may wait to be seen. */
  const BLOCKERS_EVERY_MS = 200;

  /**
   * What an answer shows only once it is done: its own controls. Those inside a code block or
   * a table come with the content as it is written; a pause adds none.
   */
  const controlsIn = (root: Element): Element[] =>
    Array.from(root.querySelectorAll('button, [role="button"], svg')).filter((c) => !c.parentElement?.closest('pre, code, table'));

  h.watchTurn = (pack, scope, limits, markerExpected, reading) =>
    new Promise<TurnOutcome>((resolve) => {
      const started = performance.now();
      let working = false;
      let lastText: string | null = null;
      let lastChange = started;
      /** When the page last said it was thinking: the waits for an answer to appear count from then. */
      let thoughtAt = started;
      let timer = 0;
      // An earlier turn on the page that shows the signal: this page gives it.
      const fresh = h.newTurn(pack);
      const expected = markerExpected || h.turns(pack).some((t) => t !== fresh && h.inScope(t, pack.finished, h.scopeOf(pack, t, scope)) !== null);
      /** The turn's controls seen while its answer was being written: they prove nothing. */
      const written = new WeakSet<Element>();
      /** The turn's controls there at the first look, the stop control not shown: they prove something only after `lostSignalMs`. */
      const there = new WeakSet<Element>();
      let looked = false;
      const quietMs = expected ? limits.lostSignalMs : limits.settleMs;
      /** Whether some control there at the first look still waits out `lostSignalMs` (the next check is due then). */
      let thereWaits = false;
      /** When the blockers were last looked for; whether a change since was looked at without them (a check is due for them). */
      let blockersAt = -Infinity;
      let blockersOwed = false;

      /** What the page shows: a notice of its own, else what the turn shows (`turnCheck`); the notices looked for as the header says. */
      const check = (): FinishedBy | TurnProblem | MissingRole | null => {
        const now = performance.now();
        const shows = turnCheck(now);
        blockersOwed = shows === null && now - blockersAt < BLOCKERS_EVERY_MS;
        if (blockersOwed) return null;
        blockersAt = now;
        return h.blocker(pack) ?? shows;
      };

      /** What the turn shows: an end, or null while it is written (or not there yet). */
      const turnCheck = (now: number): FinishedBy | TurnProblem | MissingRole | null => {
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
        const parts = h.answerParts(pack, turn);
        const text = (parts.length > 0 ? parts : [turn]).map((part) => part.textContent ?? '').join('\n');
        const firstLook = !looked;
        looked = true;
        // At the first look the text is new to the watch, not seen changing: written or done, the controls tell nothing yet.
        const writing = stopShown || (!firstLook && text !== lastText);
        if (text !== lastText) {
          lastText = text;
          lastChange = now;
        }
        const controls = controlsIn(root);
        if (writing) for (const c of controls) written.add(c);
        else if (firstLook) for (const c of controls) there.add(c);
        // An interim paragraph ("I'll research … first") sits still before the answer: never the answer.
        const interim = h.inScope(turn, pack.interim, root) !== null;
        if (stopShown || interim || text.trim() === '' || now - lastChange < quietMs) return null;
        const shown = controls.filter((c) => !written.has(c) && h.visible(c));
        const held = now - lastChange >= limits.lostSignalMs;
        const fresh = held ? shown : shown.filter((c) => !there.has(c));
        thereWaits = fresh.length < shown.length;
        if (fresh.length === 0) return null;
        const copy = h.inScope(turn, pack.copy, root);
        return {
          kind: 'finished',
          by: 'evidence',
          controls: fresh.filter((c) => !fresh.some((other) => other !== c && other.contains(c))).length,
          copy: copy !== null && fresh.some((c) => c === copy || copy.contains(c)),
          stillMs: Math.round(now - lastChange),
          expected,
          alreadyShown: fresh.some((c) => there.has(c)),
        };
      };

      /** The model the page names, as modelUsed reads it; a reading that fails names none, and fails nothing else. */
      const modelNamed = (): string | null => {
        try {
          return reading ? h.modelUsed(pack, scope, reading) : null;
        } catch {
          return null;
        }
      };
      const settle = (seen: FinishedBy | TurnProblem | MissingRole) => {
        observer.disconnect();
        window.clearTimeout(timer);
        if (seen.kind !== 'finished') return resolve(seen);
        // What the flow reads next is read now, in this call: no round trip between the end and
        // the read. A finished answer is one `check` found with no blocker, a moment ago in this call.
        const look = h.finishedLook(pack, scope, null);
        // Copy is pressed next, at the point found: the clipboard hook set now saves the press a round trip.
        if (look.inTheWay === null && look.nonText === null && look.copy.point) look.copy.armed = h.armCopyHook();
        resolve({ ...seen, look, modelUsed: modelNamed() });
      };
      /** Checks now, and again when the next time limit could pass with nothing changing in the page. */
      const run = () => {
        const outcome = check();
        if (outcome) return settle(outcome);
        window.clearTimeout(timer);
        const now = performance.now();
        const due = [thoughtAt + limits.appearWorkingMs, lastChange + quietMs, thoughtAt + limits.appearMs];
        if (thereWaits) due.push(lastChange + limits.lostSignalMs);
        if (blockersOwed) due.push(blockersAt + BLOCKERS_EVERY_MS);
        const next = Math.min(...due.filter((at) => at > now));
        timer = window.setTimeout(run, Math.max(50, (Number.isFinite(next) ? next - now : quietMs) + 20));
      };
      const observer = new MutationObserver(run);
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      run();
    });
}
