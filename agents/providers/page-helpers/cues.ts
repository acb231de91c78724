/** In the page: finding a role's element by the pack's cues (CSS, text, accessible name), and which cue matched. */
import type { PageCue } from '../site.js';
import type { Helpers } from './types.js';

export function addCues(h: Helpers): void {
  /**
   * Shown to a person: not hidden, not display:none/visibility:hidden, and bigger than the
   * 1-pixel boxes screen-reader-only text and invisible frames use.
   */
  h.visible = (el) => {
    const html = el as HTMLElement;
    if (html.hidden || html.closest?.('[hidden]')) return false;
    const style = window.getComputedStyle(html);
    if (style.display === 'none' || style.visibility === 'hidden') return false;
    if (style.display === 'contents') return true;
    const box = html.getBoundingClientRect();
    return box.width > 1 || box.height > 1;
  };

  h.regex = (pair) => (pair ? new RegExp(pair[0], pair[1]) : null);

  /** Its label, else its title, else its text. */
  h.accessibleName = (el) => {
    const label = el.getAttribute('aria-label');
    if (label) return label.trim();
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const text = by
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ')
        .trim();
      if (text) return text;
    }
    const title = el.getAttribute('title') ?? el.getAttribute('placeholder') ?? el.getAttribute('data-placeholder');
    if (title) return title.trim();
    return (el.textContent ?? '').replace(/\s+/g, ' ').trim();
  };

  h.textOf = (el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 500);

  const matchCue = (cue: PageCue, root: ParentNode): Element | null => {
    const text = h.regex(cue.text);
    const name = h.regex(cue.name);
    let all: Element[];
    try {
      all = Array.from(root.querySelectorAll(cue.css));
    } catch {
      return null; // a selector this browser cannot parse finds nothing (a user's override, an old pack)
    }
    for (const el of all) {
      if (!h.visible(el)) continue;
      if (text && !text.test(el.textContent ?? '')) continue;
      if (name && !name.test(h.accessibleName(el))) continue;
      return el;
    }
    return null;
  };

  h.which = (cues, root = document) => {
    if (!cues || !root) return -1;
    return cues.findIndex((cue) => matchCue(cue, root) !== null);
  };

  h.find = (cues, root = document) => {
    if (!cues || !root) return null;
    for (const cue of cues) {
      const hit = matchCue(cue, root);
      if (hit) return hit;
    }
    return null;
  };
}
