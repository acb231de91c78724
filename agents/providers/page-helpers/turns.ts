/**
 * In the page: the assistant turns, which of them is new since the prompt was sent, the
 * roles within a turn's scope, and the report of which cue finds each role.
 */
import type { PagePack, Role } from '../site.js';
import type { Helpers } from './types.js';

export function addTurns(h: Helpers): void {
  h.turns = (pack) => {
    for (const cue of pack.assistantTurn ?? []) {
      let all: Element[];
      try {
        all = Array.from(document.querySelectorAll(cue.css));
      } catch {
        continue;
      }
      const shown = all.filter((el) => h.visible(el) && (!cue.text || h.regex(cue.text)!.test(el.textContent ?? '')));
      // An element inside another match is part of that turn, not a turn of its own.
      const outer = shown.filter((el) => !shown.some((other) => other !== el && other.contains(el)));
      if (outer.length > 0) return outer;
    }
    return [];
  };

  /**
   * What identifies a turn across re-renders: a virtualized transcript may replace an old
   * turn's element by a new one for the same message, which must not pass for a new turn.
   */
  const IDENTITY = ['data-message-id', 'data-turn-key', 'data-virtual-list-item-key', 'data-turn-id', 'data-rs-index', 'data-testid', 'id'];
  const identity = (turn: Element, all: Element[], composer: Element | null): string | null => {
    // The turn's own attributes, or those of wrappers that hold this turn and no other turn
    // and not the composer (past that is the page: with one turn mounted, its `#root`).
    for (let el: Element | null = turn; el && el !== document.body; el = el.parentElement) {
      if (el !== turn && (all.some((other) => other !== turn && el!.contains(other)) || (composer && el.contains(composer)))) break;
      for (const attr of IDENTITY) {
        // An id on a wrapper names a region of the page (`#chat-message-container`), not a message.
        if (attr === 'id' && el !== turn) continue;
        const value = el.getAttribute(attr);
        if (value && (attr !== 'data-testid' || /\d/.test(value))) return `${attr}=${value}`;
      }
    }
    return null;
  };

  const seen = { elements: new WeakSet<Element>(), ids: new Set<string>() };

  h.markTurns = (pack) => {
    const present = h.turns(pack);
    seen.elements = new WeakSet(present);
    const composer = h.find(pack.composer);
    seen.ids = new Set(present.map((t) => identity(t, present, composer)).filter((id): id is string => id !== null));
    return present.length;
  };

  h.newTurn = (pack) => {
    const all = h.turns(pack);
    const composer = h.find(pack.composer);
    return (
      all.find((t) => {
        if (seen.elements.has(t)) return false;
        const id = identity(t, all, composer);
        // A value another turn on the page shares identifies neither (a test id every turn
        // carries, renamed so that it holds a digit): then this is a different turn.
        return !id || !seen.ids.has(id) || all.some((other) => other !== t && identity(other, all, composer) === id);
      }) ?? null
    );
  };

  h.inScope = (turn, cues, scope) => {
    for (const cue of cues ?? []) {
      try {
        if (!cue.text && !cue.name && turn.matches(cue.css)) return turn;
      } catch {
        // an unparsable selector: see matchCue in cues.ts
      }
    }
    const root = (scope && turn.closest(scope)) || turn;
    return h.find(cues, root);
  };

  h.inTurn = (pack, role, scope, last = false) => {
    const turn = last ? (h.turns(pack).at(-1) ?? null) : h.newTurn(pack);
    return turn ? h.inScope(turn, pack[role], scope) : null;
  };

  h.report = (pack: PagePack, scope: string | null) => {
    const out: Partial<Record<Role, number>> = {};
    const turn = h.newTurn(pack) ?? h.turns(pack).at(-1) ?? null;
    for (const role of Object.keys(pack) as Role[]) {
      const turnLevel = role === 'answer' || role === 'finished' || role === 'copy' || role === 'refusal';
      if (!turnLevel) {
        out[role] = h.which(pack[role]);
      } else if (turn) {
        const cues = pack[role] ?? [];
        out[role] = cues.findIndex((cue) => h.inScope(turn, [cue], scope) !== null);
      } else {
        out[role] = -1;
      }
    }
    return out;
  };
}
