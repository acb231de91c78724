/**
 * In the page: the conversation concealed for a diagnostic bundle — blurred on screen for a
 * screenshot, and blanked out of a copy of the page's HTML.
 */
import type { Helpers } from './types.js';

export function addConcealment(h: Helpers): void {
  h.conceal = (pack, secrets, on) => {
    const MARK = 'data-chatbridge-conceal';
    document.getElementById('__chatbridge-conceal')?.remove();
    for (const el of Array.from(document.querySelectorAll(`[${MARK}]`))) el.removeAttribute(MARK);
    if (!on) return;
    const pieces = secrets.map((p) => p.trim()).filter((p) => p.length > 0);
    const holdsSecret = (text: string) => {
      const t = text.trim();
      return t.length > 0 && pieces.some((p) => p.includes(t) || (t.length >= 24 && t.includes(p.slice(0, 24))));
    };
    const marked = [...h.turns(pack), h.find(pack.composer)].filter((el): el is Element => el !== null);
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement && holdsSecret(node.textContent ?? '')) marked.push(node.parentElement);
    }
    for (const el of marked) el.setAttribute(MARK, '');
    const style = document.createElement('style');
    style.id = '__chatbridge-conceal';
    style.textContent = `[${MARK}] { filter: blur(9px) !important; }`;
    document.head.append(style);
  };
  h.concealedHtml = () => {
    const copy = document.documentElement.cloneNode(true) as HTMLElement;
    copy.querySelector('#__chatbridge-conceal')?.remove();
    const blank = (t: string) => t.replace(/\S/g, '•');
    const walker = document.createTreeWalker(copy, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement?.closest('[data-chatbridge-conceal], script, noscript, template, textarea')) node.textContent = blank(node.textContent ?? '');
    }
    for (const el of Array.from(copy.querySelectorAll('[data-chatbridge-conceal], [data-chatbridge-conceal] *'))) {
      for (const attr of Array.from(el.attributes)) if (/^(aria-label|title|value|alt|data-placeholder)$/.test(attr.name)) el.setAttribute(attr.name, blank(attr.value));
    }
    for (const input of Array.from(copy.querySelectorAll('input, textarea'))) input.setAttribute('value', '');
    return `<!doctype html>\n${copy.outerHTML}`;
  };
}
