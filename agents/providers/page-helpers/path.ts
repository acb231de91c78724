/**
 * In the page: where an element sits in the tree, for Playwright to find the same element
 * from its own world (page-world.ts): nothing is written into the page to point at it.
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
}
