/**
 * In the page: where an element sits in the tree, for Playwright to find the same element
 * from its own world (page-world.ts): nothing is written into the page to point at it; and
 * where on the screen a click reaches it.
 */
import type { Helpers } from './types.js';

export function addPath(h: Helpers): void {
  h.pathOf = (el) => {
    const steps: string[] = [];
    let node: Element = el;
    for (;;) {
      const parent = node.parentNode;
      if (!parent) return null;
      if (parent.nodeType === Node.DOCUMENT_NODE) break;
      const host = parent instanceof ShadowRoot ? parent.host : null;
      steps.push(`${node.localName}:${Array.prototype.indexOf.call((parent as ParentNode).children, node)}`);
      if (host) steps.push('#shadow');
      node = host ?? (parent as Element);
    }
    steps.push(`${node.localName}:0`);
    return steps.reverse().join('/');
  };

  h.clickPoint = (el) => {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return null;
    const x = box.left + box.width / 2;
    const y = box.top + box.height / 2;
    if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) return null;
    // The topmost element there, down through open shadow roots, as the click would find it.
    let top = document.elementFromPoint(x, y);
    while (top?.shadowRoot) {
      const inner = top.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === top) break;
      top = inner;
    }
    return top && (top === el || el.contains(top)) ? { x, y } : null;
  };
}
