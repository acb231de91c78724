/**
 * Drift kind `no-finish`: the answer's finished signal and its actions become unknown to
 * any cue, as after a release that renamed what the pack knows of them. What the skin's
 * `finish` does to the page is undone in name only:
 * - the flags it sets on elements already there (`data-is-streaming="false"`, a turn state,
 *   `aria-busy="false"`, a class such as `complete`) are taken off again;
 * - what it adds loses its names: the controls (the action bar, a copy button) and the boxes
 *   that hold only controls keep their tag (a custom element becomes a `<div>`), their icons
 *   and their click handlers, and lose every attribute, label, icon name and word; a box that
 *   holds the answer (a final-text wrapper) loses only its own `data-*` flags.
 * The answer itself, its text and its markup, stays as the skin wrote it: only an agent that
 * waits for a signal it cannot see is put to the test. A skin knows nothing of it
 * (drift.ts calls it on every finish).
 */

/** What a skin's `finish` changed: the outermost elements it added, and the attributes it set on elements already there. */
export interface FinishChange {
  added: Element[];
  attributes: { target: Element; name: string; old: string | null }[];
  /** The answer's opening words as it last rendered: what tells the answer from an action bar. */
  opening: string;
}

const CONTROLS = 'button, [role="button"]';
const holdsControls = (el: Element) => el.matches(CONTROLS) || el.querySelector(`${CONTROLS}, svg`) !== null;
/** What an anonymous control keeps: how it looks and behaves, not what it is called. */
const KEPT = new Set(['style', 'type', 'disabled']);

const words = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The answer's opening words, from the HTML it last rendered. */
export function openingOf(html: string): string {
  const box = document.createElement('div');
  box.innerHTML = html;
  return words(box.textContent ?? '').slice(0, 40);
}

/** Runs `finish` and says what it changed in the page; `opening`: the answer's opening words. */
export function finishChanges(finish: () => void, opening: string): FinishChange {
  const watcher = new MutationObserver(() => {});
  watcher.observe(document.body, { childList: true, subtree: true, attributes: true, attributeOldValue: true });
  finish();
  const records = watcher.takeRecords();
  watcher.disconnect();
  const nodes = records.flatMap((r) => Array.from(r.addedNodes)).filter((n): n is Element => n instanceof Element && n.isConnected);
  const added = nodes.filter((e) => !nodes.some((other) => other !== e && other.contains(e)));
  const attributes = records
    .filter((r) => r.type === 'attributes' && !added.some((a) => a.contains(r.target)))
    .map((r) => ({ target: r.target as Element, name: r.attributeName!, old: r.oldValue }));
  return { added, attributes, opening };
}

/** Takes the names off what `change` did (see the module's note). */
export function unnameFinish(change: FinishChange): void {
  for (const { target, name, old } of change.attributes) {
    if (name === 'style') {
      // Shown at the end (an action bar kept hidden until then): unnamed like one added.
      if (holdsControls(target)) unnameSubtree(target, change.opening);
    } else if (name === 'class') {
      const before = new Set((old ?? '').split(/\s+/));
      for (const token of Array.from(target.classList)) if (!before.has(token)) target.classList.remove(token);
    } else {
      target.removeAttribute(name);
    }
  }
  for (const root of change.added) unnameSubtree(root, change.opening);
}

function unnameSubtree(root: Element, opening: string): void {
  // A box around the answer (re-rendered at the end) keeps its markup: only its flags go.
  const holdsAnswer = (el: Element) => opening !== '' && words(el.textContent ?? '').includes(opening);
  if (holdsAnswer(root)) {
    for (const attr of Array.from(root.attributes)) if (attr.name.startsWith('data-')) root.removeAttribute(attr.name);
    // Beside the answer: the action bar, not the answer's other paragraphs.
    for (const child of Array.from(root.children)) if (!holdsAnswer(child) && holdsControls(child)) unnameSubtree(child, opening);
    return;
  }
  const chrome = [root, ...Array.from(root.querySelectorAll('*'))].filter((el) => !el.closest('svg'));
  for (const el of chrome) {
    for (const node of Array.from(el.childNodes)) if (node.nodeType === Node.TEXT_NODE) node.remove();
    for (const attr of Array.from(el.attributes)) if (!KEPT.has(attr.name)) el.removeAttribute(attr.name);
  }
  // An icon drawn from a sprite keeps its shape nowhere but in its name: it goes blank.
  for (const use of Array.from(root.querySelectorAll('use'))) {
    use.removeAttribute('href');
    use.removeAttribute('xlink:href');
  }
  // A custom element is known by its tag (Gemini's `message-actions`): it becomes a box.
  for (const el of chrome.filter((e) => e.tagName.includes('-') && e.isConnected)) {
    const box = document.createElement('div');
    box.append(...Array.from(el.childNodes));
    el.replaceWith(box);
  }
}
