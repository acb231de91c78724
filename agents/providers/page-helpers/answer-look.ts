/**
 * In the page: what a finished answer is before it is read, in one look. What is in the way
 * (obstacles.ts) comes first; an answer that is not text (a generated file, an image, a
 * canvas, and no words beside it) is one ChatBridge cannot hand back, though the site did
 * nothing wrong; and the Copy of a text answer is where its Markdown is read from. Beside
 * it, the model the page names as having answered.
 */
import type { Helpers } from './types.js';

export function addAnswerLook(h: Helpers): void {
  h.finishedLook = (pack, scope, problem) => {
    const inTheWay = h.inTheWay(pack, problem);
    return inTheWay ? { inTheWay } : { inTheWay: null, ...h.answerLook(pack, scope) };
  };

  /**
   * ChatGPT's message slug in the answer's turn, the picker's label (Claude, Gemini, Qwen;
   * ChatGPT's app-shell build), the mode toggles in force (DeepSeek, Perplexity), whose labels
   * are joined.
   */
  h.modelUsed = (pack, scope, { modelUsed: places, picker, toggle, selected }) => {
    const within = (root: Element, css: string | undefined): Element | null => (css === undefined || root.matches(css) ? root : root.querySelector(css));
    const read = (el: Element | null, place: (typeof places)[number]): string => {
      if (!el) return '';
      const raw = place.attribute ? el.getAttribute(place.attribute) : ((el as HTMLElement).innerText ?? el.textContent);
      return (raw ?? '').replace(/\s+/g, ' ').trim();
    };
    const named = (text: string, pattern: string | undefined): string | null => {
      const name = pattern ? new RegExp(pattern, 'iu').exec(text)?.[1]?.trim() : text;
      return name ? name.slice(0, 100) : null;
    };
    for (const place of places) {
      let text = '';
      if (place.in === 'answer') {
        const turn = h.newTurn(pack) ?? h.turns(pack).at(-1) ?? null;
        if (turn) text = read(within(turn, place.css) ?? h.scopeOf(pack, turn, scope).querySelector(place.css!), place);
      } else if (place.in === 'picker') {
        const found = h.find(picker);
        if (found) text = read(within(found, place.css), place);
      } else if (toggle) {
        const on = Array.from(document.querySelectorAll(toggle)).filter((el) => h.visible(el) && el.matches(selected));
        text = on.map((el) => read(el, place) || h.accessibleName(el).trim()).filter(Boolean).join(' + ');
      }
      const name = named(text, place.pattern);
      if (name) return name;
    }
    return null;
  };

  h.answerLook = (pack, scope) => ({ nonText: h.nonText(pack), copy: h.copyLook(pack, scope, false) });

  h.copyLook = (pack, scope, lastTurn) => {
    h.clearClipboard();
    const last = lastTurn || !h.newTurn(pack);
    const copy = h.inTurn(pack, 'copy', scope, last);
    return { last, point: copy ? h.clickPoint(copy) : null };
  };

  h.nonText = (pack) => {
    const turn = h.newTurn(pack) ?? h.turns(pack).at(-1) ?? null;
    if (!turn) return null;
    // The card may sit beside the answer's (empty) Markdown rather than in it.
    const answer = h.find(pack.answer, turn) ?? turn;
    const FILE = 'a[download], [download], [data-testid*="file" i], [class*="file-card" i], [class*="file-preview" i], [class*="attachment" i]';
    const kinds: [string, string][] = [
      [FILE, 'a file'],
      ['canvas, [data-testid*="canvas" i], [class*="canvas" i]', 'a canvas'],
      ['img, [role="img"]:not(svg)', 'an image'],
    ];
    // In the answer, any of them; elsewhere in the turn only a file card (an avatar or an icon
    // beside an answer that read empty is no answer, and says nothing of the site).
    const places: [Element, [string, string][]][] = [
      [answer, kinds],
      [turn, kinds.slice(0, 1)],
    ];
    let found: [string, string] | undefined;
    let item: Element | undefined;
    for (const [place, wanted] of places) {
      for (const kind of wanted) {
        item = Array.from(place.querySelectorAll(kind[0])).find((el) => el.getClientRects().length > 0);
        if (item) {
          found = kind;
          break;
        }
      }
      if (found) break;
    }
    if (!found || !item) return null;
    // Words beside it make the answer text after all.
    const rest = answer.cloneNode(true) as Element;
    for (const el of Array.from(rest.querySelectorAll(kinds.map(([css]) => css).join(', ')))) el.remove();
    if ((rest.textContent ?? '').trim() !== '') return null;
    // Its name, from the card itself (the turn's other text, a status line, is not part of it).
    const card = item.closest('[class*="file-card" i], [data-testid*="file" i]') ?? item;
    const name = card.getAttribute('download') || /[\w.-]+\.(?:pdf|docx?|xlsx?|pptx?|csv|zip|md|txt|png|jpe?g|svg|html?)\b/i.exec(card.textContent ?? '')?.[0];
    return name ? `${found[1]} ("${name}")` : found[1];
  };
}
