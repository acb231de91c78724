/**
 * In the page: what a diagnostic bundle may show of it. Nothing here depends on the pack's
 * cues finding the conversation (a bundle is taken because something broke, the turn cue as
 * likely as any): every text is taken for the conversation's unless all its words are the
 * site's interface words (ui-words.ts, the pack's own words: interface-words.ts).
 */
import type { Helpers, Rect } from './types.js';

export function addScrub(h: Helpers): void {
  const WORD = /[\p{L}\p{N}]+/gu;
  /** Attributes that name the page's structure rather than say anything: kept as they are. */
  const STRUCTURE =
    /^(?:class|id|role|type|lang|dir|tabindex|style|hidden|disabled|readonly|checked|selected|contenteditable|for|rel|target|method|autocomplete|inputmode|spellcheck|draggable|translate|width|height|viewbox|d|fill|stroke|stroke-width|stroke-linecap|stroke-linejoin|fill-rule|clip-rule|xmlns(?::\w+)?|data-testid|data-state|aria-(?:hidden|expanded|pressed|selected|checked|disabled|haspopup|controls|labelledby|describedby|live|level|current|busy|modal|orientation|owns|atomic))$/i;
  const LINK = /^(?:href|src|srcset|action|poster|formaction|xlink:href)$/i;

  const only = (text: string, words: Set<string>) => (text.toLowerCase().match(WORD) ?? []).every((w) => words.has(w));
  const blank = (text: string) => text.replace(/[\p{L}\p{N}\p{M}]/gu, 'x');
  const scrub = (text: string, words: Set<string>) => (only(text, words) ? text : blank(text));
  /** An address keeps its origin and the path's segments that are interface words: a path or a query may hold a prompt's words. */
  const scrubLink = (value: string, words: Set<string>) => {
    let url: URL;
    try {
      url = new URL(value, document.baseURI);
    } catch {
      return blank(value);
    }
    if (!/^https?:$/.test(url.protocol)) return blank(value);
    const path = url.pathname.split('/').map((segment) => scrub(decodeURIComponent(segment), words)).join('/');
    return `${url.origin}${path}${blank(url.search)}${blank(url.hash)}`;
  };

  const scrubTree = (root: Node, words: Set<string>) => {
    const dropped: Node[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT | NodeFilter.SHOW_COMMENT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === Node.COMMENT_NODE) dropped.push(node);
      else if (node.nodeType === Node.TEXT_NODE) {
        const parent = node.parentElement?.localName;
        // A style sheet is the site's; a script's data may hold the whole conversation.
        if (parent === 'style') continue;
        node.textContent = parent === 'script' ? blank(node.textContent ?? '') : scrub(node.textContent ?? '', words);
      } else {
        const el = node as Element;
        for (const attr of Array.from(el.attributes)) {
          if (STRUCTURE.test(attr.name)) continue;
          el.setAttribute(attr.name, LINK.test(attr.name) ? scrubLink(attr.value, words) : scrub(attr.value, words));
        }
        if (el instanceof HTMLTemplateElement) scrubTree(el.content, words);
      }
    }
    for (const node of dropped) node.parentNode?.removeChild(node);
  };

  h.scrubbedHtml = (list) => {
    // A copy, in the helpers' world: the page's own custom elements are not defined here, so
    // cloning runs none of the page's code, and the live page is never changed.
    const copy = document.documentElement.cloneNode(true) as HTMLElement;
    scrubTree(copy, new Set(list));
    return `<!doctype html>\n${copy.outerHTML}`;
  };

  h.controlRects = (list) => {
    const words = new Set(list);
    const area = window.innerWidth * window.innerHeight;
    const CONTROLS = 'button, [role="button"], [role="tab"], [role="menuitem"], [role="switch"], [role="checkbox"], input, select, textarea, a[href]';
    const rects: Rect[] = [];
    for (const el of Array.from(document.querySelectorAll(CONTROLS))) {
      if (!h.visible(el)) continue;
      const field = el as HTMLInputElement;
      const says = [(el as HTMLElement).innerText ?? '', el.getAttribute('aria-label') ?? '', el.getAttribute('title') ?? '', field.value ?? '', field.placeholder ?? ''].join(' ');
      if (!only(says, words)) continue;
      const box = el.getBoundingClientRect();
      const x = Math.max(box.left, 0);
      const y = Math.max(box.top, 0);
      const w = Math.min(box.right, window.innerWidth) - x;
      const hgt = Math.min(box.bottom, window.innerHeight) - y;
      // A "control" as big as a region (a card made clickable) is the page's content, not a control.
      if (w <= 0 || hgt <= 0 || w * hgt > area / 10) continue;
      rects.push({ x, y, w, h: hgt });
    }
    return rects;
  };
}
