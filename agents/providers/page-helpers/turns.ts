/**
 * In the page: the assistant turns, which of them is new since the prompt was sent, the
 * roles within a turn's scope, and the report of which cue finds each role.
 */
import type { PagePack, Role } from '../site.js';
import type { Helpers, TurnScope } from './types.js';

export function addTurns(h: Helpers): void {
  /** The turns the first of `cues` that finds any finds, in document order. */
  const turnsBy = (cues: PagePack['assistantTurn']): Element[] => {
    for (const cue of cues ?? []) {
      let all: Element[];
      try {
        all = Array.from(document.querySelectorAll(cue.css));
      } catch {
        continue;
      }
      const text = h.regex(cue.text);
      // The words first: they are a string test, visibility a read of style and box (cues.ts).
      const shown = all.filter((el) => (!text || text.test(el.textContent ?? '')) && h.visible(el));
      // An element inside another match is part of that turn, not a turn of its own.
      const outer = shown.filter((el) => !shown.some((other) => other !== el && other.contains(el)));
      if (outer.length > 0) return outer;
    }
    return [];
  };
  h.turns = (pack) => turnsBy(pack.assistantTurn);
  h.userTurns = (pack) => turnsBy(pack.userTurn);

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

  /**
   * A turn with no identity of its own (DeepSeek's unkeyed rows) is known by its words: the
   * turns marked, by their text. One whose element has left the page and whose words a turn
   * not marked has is that turn again, re-rendered (an unkeyed virtual list re-creates its
   * rows); while the marked element is still there, a turn with the same words is a new one.
   */
  const wordsOf = (turn: Element) => (turn.textContent ?? '').replace(/\s+/g, ' ').trim();
  const reRendered = (turn: Element) => {
    const words = wordsOf(turn);
    return words !== '' && (seen.byWords.get(words) ?? []).some((old) => !old.isConnected);
  };

  const seen = { elements: new WeakSet<Element>(), ids: new Set<string>(), byWords: new Map<string, Element[]>() };

  h.markTurns = (pack, upTo = Infinity) => {
    const present = h.turns(pack);
    const marked = present.slice(0, upTo);
    seen.elements = new WeakSet(marked);
    const composer = h.find(pack.composer);
    seen.ids = new Set(marked.map((t) => identity(t, present, composer)).filter((id): id is string => id !== null));
    seen.byWords = new Map();
    for (const t of marked) {
      if (identity(t, present, composer) !== null) continue;
      const words = wordsOf(t);
      seen.byWords.set(words, [...(seen.byWords.get(words) ?? []), t]);
    }
    return present.length;
  };

  h.newTurn = (pack) => {
    const all = h.turns(pack);
    const composer = h.find(pack.composer);
    return (
      all.find((t) => {
        if (seen.elements.has(t)) return false;
        const id = identity(t, all, composer);
        if (!id) return !reRendered(t);
        // A value another turn on the page shares identifies neither (a test id every turn
        // carries, renamed so that it holds a digit): then this is a different turn.
        return !seen.ids.has(id) || all.some((other) => other !== t && identity(other, all, composer) === id);
      }) ?? null
    );
  };

  h.scopeOf = (pack, turn, scope) => {
    const others = h.turns(pack).filter((t) => t !== turn);
    for (const selector of scope) {
      let root: Element | null;
      try {
        root = turn.closest(selector);
      } catch {
        continue; // an unparsable selector: see select in cues.ts
      }
      // A scope around another turn too would hand this turn that turn's signals.
      if (root && !others.some((t) => root!.contains(t))) return root;
    }
    return turn;
  };

  h.inScope = (turn, cues, root) => {
    for (const cue of cues ?? []) {
      try {
        if (!cue.text && !cue.name && turn.matches(cue.css)) return turn;
      } catch {
        // an unparsable selector: see select in cues.ts
      }
    }
    return h.find(cues, root);
  };

  h.answerParts = (pack, turn) => {
    for (const cue of pack.answer ?? []) {
      // Every part the first cue that finds any finds (an answer split around a tool step), none inside another.
      const all = h.findAll(cue, turn);
      if (all.length > 0) return all.filter((el) => !all.some((other) => other !== el && other.contains(el)));
    }
    return [];
  };

  h.answerMarkdown = (pack, turn) => {
    const parts = h.answerParts(pack, turn);
    return (parts.length > 0 ? parts : [turn]).map((part) => h.toMarkdown(part)).filter((md) => md.trim() !== '').join('\n\n');
  };

  h.settledAnswer = (pack) => {
    const turn = h.newTurn(pack);
    // Before an answer cue finds the answer, or while a site's interim words stand in for it,
    // nothing read is the answer's. A turn that is its answer (Perplexity's) is read whole, as
    // answerMarkdown reads it.
    if (!turn || h.find(pack.interim, turn)) return '';
    const parts = h.answerParts(pack, turn);
    if (parts.length === 0 && h.inScope(turn, pack.answer, turn) === turn) parts.push(turn);
    if (parts.length === 0) return '';
    const done = h.settledBlocks(parts);
    return done.length === 0 ? '' : `${done.join('\n\n')}\n\n`;
  };

  h.inTurn = (pack, role, scope, last = false) => {
    const turn = last ? (h.turns(pack).at(-1) ?? null) : h.newTurn(pack);
    return turn ? h.inScope(turn, pack[role], h.scopeOf(pack, turn, scope)) : null;
  };

  h.report = (pack: PagePack, scope: TurnScope) => {
    const out: Partial<Record<Role, number>> = {};
    // The turn the flow reads: the new one, or (after an A/B pick re-rendered it) the last.
    const turn = h.newTurn(pack) ?? h.turns(pack).at(-1) ?? null;
    const root = turn && h.scopeOf(pack, turn, scope);
    for (const role of Object.keys(pack) as Role[]) {
      const cues = pack[role] ?? [];
      if (role === 'answer') {
        // The flow reads the answer inside the turn, never beside it.
        out[role] = turn ? cues.findIndex((cue) => h.find([cue], turn) !== null) : -1;
      } else if (role === 'finished' || role === 'copy' || role === 'refusal') {
        out[role] = turn && root ? cues.findIndex((cue) => h.inScope(turn, [cue], root) !== null) : -1;
      } else {
        out[role] = h.which(cues);
      }
    }
    return out;
  };
}
