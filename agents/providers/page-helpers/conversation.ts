/**
 * In the page: what belongs to the conversation rather than to the page around it. An
 * answer may link to a login page or say "Account locked" in a heading, a prompt may ask
 * about usage limits, and sites title a chat with its first prompt (in the tab, the sidebar's
 * history, the header): none of that is the site speaking about the account, so the page's
 * notices (obstacles.ts) are never read from it.
 */
import type { PagePack } from '../site.js';
import type { Helpers } from './types.js';

export function addConversation(h: Helpers): void {
  /** The assistant's turns and the person's on the page, the answer still coming among them. */
  const turnsOf = (pack: PagePack): Element[] => {
    const composer = h.find(pack.composer);
    // A loose structural cue could match a region that holds the composer too (a page with
    // no turn at all): that is the page, not a turn, and a notice in it is the site's.
    const turns = [...h.turns(pack), ...h.userTurns(pack)].filter((turn) => !composer || !turn.contains(composer));
    return [...turns, ...newest(pack, turns, composer)];
  };

  /**
   * The answer coming after every turn the first cue finds, when only a later cue finds it: a
   * site may mark an answer as the others only once it has streamed (Perplexity's
   * `[data-workflow-final-text]`). Only after the last turn: before it, a later and looser cue
   * may match a region of the page (a header) rather than an answer.
   */
  const newest = (pack: PagePack, turns: Element[], composer: Element | null): Element[] => {
    const last = turns.reduce<Element | null>((a, b) => (a && a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_PRECEDING ? a : b), null);
    if (!last) return [];
    const after = (pack.assistantTurn ?? []).flatMap((cue) =>
      h.findAll(cue, document).filter((el) => last.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING && !el.contains(last) && !(composer && el.contains(composer))),
    );
    return after.filter((el) => !after.some((other) => other !== el && other.contains(el)));
  };

  h.showsConversation = (pack) => turnsOf(pack).length > 0;

  h.conversation = (pack) => {
    // Worked out on the first element asked about: a page with no candidate notice, the
    // common case, pays nothing.
    let turns: Element[] | null = null;
    const held = () => (turns ??= turnsOf(pack));
    const inTitle = (el: Element) =>
      (pack.chatTitle ?? []).some((cue) => {
        try {
          return el.closest(cue.css) !== null;
        } catch {
          return false; // an unparsable selector: see select in cues.ts
        }
      });
    /** The chat's title where no cue knows it (a header), as the tab's title has it, on a page that shows the chat. */
    const tabTitle = (el: Element) => {
      const words = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
      return words !== '' && held().length > 0 && document.title.replace(/\s+/g, ' ').includes(words);
    };
    const holds = (el: Element) => held().some((turn) => turn.contains(el)) || inTitle(el) || tabTitle(el);
    // A region around the chats' titles (a sidebar's list) starts with one: its own words are the rest.
    const wordsBeside = (el: Element) => {
      let words = '';
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let text = walker.nextNode(); text; text = walker.nextNode()) if (!holds(text.parentElement!)) words += text.textContent ?? '';
      return words;
    };
    return {
      holds,
      wordsBeside,
      beside: (el, cue) => !holds(el) && (!cue.text || h.regex(cue.text)!.test(wordsBeside(el))),
    };
  };
}
