/** In the page: finding a role's element by the pack's cues (CSS, text, accessible name), and which cue matched. */
import type { Accept, Helpers } from './types.js';
import type { PageCue } from '../cues.js';
import type { PagePack } from '../site.js';

export function addCues(h: Helpers): void {
  const packs = new Map<string, PagePack>();
  h.pack = (json) => {
    let pack = packs.get(json);
    if (pack === undefined) {
      pack = JSON.parse(json) as PagePack;
      packs.set(json, pack);
    }
    return pack;
  };

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

  h.regex = (pattern) => {
    if (!pattern) return null;
    const [source, flags, limit] = pattern;
    // Only ever tested: without `g` and `y`, a test does not start where the last one ended.
    const re = new RegExp(source, flags.replace(/[gy]/g, ''));
    return limit === undefined ? re : { test: (text: string) => re.test(text.slice(0, limit)) };
  };

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

  /**
   * A notice's words for a person: without its controls' labels, which textContent would glue
   * onto the message ("…try again later.Retry"); the whole text when that is all it has.
   */
  h.textOf = (el) => {
    const words = el.cloneNode(true) as Element;
    for (const control of Array.from(words.querySelectorAll('button, [role="button"]'))) control.remove();
    const squash = (node: Node) => (node.textContent ?? '').replace(/\s+/g, ' ').trim();
    return (squash(words) || squash(el)).slice(0, 500);
  };

  /** The elements under `root` that `css` selects; none for a selector this browser cannot parse (a user's override, an old pack). */
  const select = (root: ParentNode, css: string): Element[] => {
    try {
      return Array.from(root.querySelectorAll(css));
    } catch {
      return [];
    }
  };

  /**
   * Those of `all` (what the cue's selector selects) that are visible and that the cue's words
   * and `accept` take, in document order; with `first`, at most one. Visibility is looked at
   * last but for `accept`: it reads each element's style and box, where the words are a string
   * test, and a cue that reads a notice by its words selects much of the page (Claude's limit
   * banner: every element outside the conversation) to find one.
   */
  const matches = (cue: PageCue, all: Element[], first: boolean, accept?: Accept): Element[] => {
    const text = h.regex(cue.text);
    const name = h.regex(cue.name);
    const found: Element[] = [];
    for (const el of all) {
      if (text && !text.test(el.textContent ?? '')) continue;
      if (name && !name.test(h.accessibleName(el))) continue;
      if (!h.visible(el)) continue;
      if (accept && !accept(el, cue)) continue;
      found.push(el);
      if (first) break;
    }
    return found;
  };

  h.findAll = (cue, root) => matches(cue, select(root, cue.css), false);

  h.which = (cues, root = document) => {
    if (!cues || !root) return -1;
    return cues.findIndex((cue) => matches(cue, select(root, cue.css), true).length > 0);
  };

  h.find = (cues, root = document, accept) => {
    if (!cues || !root) return null;
    // Cues that tell one notice's wordings apart share their selector: it is run once.
    let css: string | null = null;
    let all: Element[] = [];
    for (const cue of cues) {
      if (cue.css !== css) {
        css = cue.css;
        all = select(root, css);
      }
      const hit = matches(cue, all, true, accept)[0];
      if (hit) return hit;
    }
    return null;
  };
}
