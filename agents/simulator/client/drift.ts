/**
 * Drift mode: the simulated site, as built by its skin, drifts from the markup its selector
 * pack was written against, one kind of cue at a time (drift-kinds.ts), the way the live
 * sites do between releases. A skin knows nothing of it: the drift rewrites the page after
 * the skin has built it, and a MutationObserver rewrites everything the skin adds or changes
 * later (streamed answers, action bars, a button's new label). Observers are called in the
 * order they were created and this one is created when the page loads, so a page script
 * that watches the DOM later (ChatBridge's own) only ever sees the drifted page.
 *
 * What the page does stays the same: the same sends, stops and finishes reach the site's
 * log, and a person can still use it (the skin's own class lookups and stylesheets are
 * carried over to the new names).
 */
import { promoDialog } from './drift-dialog.js';
import { finishChanges, openingOf, unnameFinish, type FinishChange } from './drift-finish.js';
import type { DriftKind } from './drift-kinds.js';
import { followDrift } from './drift-lookups.js';
import { GERMAN, germanLabel } from './drift-german.js';
import { buildHash, renamedTestId, renameInSelector, type SelectorRenames } from './drift-names.js';
import type { AssistantTurn, SkinUi } from './skin.js';

declare global {
  interface Window {
    /** For tests and for a person debugging a pack: what the drift changed. */
    __SIM_DRIFT?: DriftProbe;
  }
}

export interface DriftProbe {
  kinds: readonly DriftKind[];
  /** The value `attr` of `element` had before the drift renamed or translated it. */
  undrifted(element: Element, attr: string): string | null;
}

/** Test hooks: the attributes sites put on elements for their own end-to-end tests. */
const TEST_ATTRIBUTES = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];
/** Attributes that name other elements by id. */
const ID_REFERENCES = ['for', 'aria-labelledby', 'aria-describedby', 'aria-controls', 'aria-owns', 'aria-activedescendant', 'aria-details', 'aria-errormessage', 'list', 'form'];
/** Attributes that hold words a person reads or hears (`mattooltip`, `arialabel`: Angular Material inputs Gemini renders). */
const LABEL_ATTRIBUTES = ['aria-label', 'title', 'placeholder', 'aria-placeholder', 'data-placeholder', 'alt', 'aria-roledescription', 'mattooltip', 'arialabel'];
/** Elements whose text is a control's name. */
const NAMED_CONTROLS = 'button, a, summary, label, [role="button"], [role="tab"], [role="radio"], [role="checkbox"], [role="switch"], [role="menuitem"], [role="option"], [role="link"]';
/** What the `wrappers` kind wraps: the controls a person (or an agent) acts on. */
const WRAPPED_CONTROLS = 'button, [role="button"], textarea, input, [contenteditable="true"]';
/** Classes the Markdown renderer writes (a code block's language), not the site's build: they survive a rebuild. */
const CONTENT_CLASS = /^(?:language|lang)-/;
/** "Copy" in the eight languages of the shared vocabulary (ui-words.ts), in names, ids and icon names. */
const COPY_WORDS = /copy|kopier|copier|copiar|复制|複製|コピー|копир/i;
/** How many turns an `unmount` transcript keeps mounted. */
const MOUNTED_TURNS = 2;

/** One way of rewriting the page, applied to every element and text the page shows. */
interface Rewrite {
  /** The attributes whose later changes it must see. */
  attributes: readonly string[];
  element?(element: Element): void;
  text?(node: Text): void;
  stylesheet?(sheet: CSSStyleSheet): void;
  /** The value before the rewrite, when this rewrite owns `attr`. */
  undrifted?(attr: string, value: string): string | null;
  /** How it renames what selectors name, for the page's own lookups (drift-lookups.ts). */
  selectors?: SelectorRenames;
}

/** What the turn-level kinds do as the transcript grows. */
interface TurnHooks {
  /** The elements a new user or assistant turn added to the page. */
  turnAdded(roots: Element[]): void;
  answerFinished(change: FinishChange): void;
}

/**
 * Applies `kinds` to the page the skin has just built, and returns the skin's interface
 * with the turn-level kinds (unmount, dialog, wrapped turns) hooked in. No kinds: `ui`.
 */
export function withDrift(kinds: readonly DriftKind[], ui: SkinUi): SkinUi {
  if (kinds.length === 0) return ui;
  const on = new Set(kinds);
  const turnRoots = new WeakSet<Element>();
  const rewrites: Rewrite[] = [];
  // Removing the copy controls first: nothing else needs to touch them.
  if (on.has('no-copy')) rewrites.push(removeCopyControls());
  if (on.has('testids')) rewrites.push(renameTestIds());
  if (on.has('classes')) rewrites.push(hashClassesAndIds());
  if (on.has('labels')) rewrites.push(translateLabels());
  // Wrapping last: it moves elements, after the others have rewritten them.
  const wrappers = on.has('wrappers') ? wrapControlsAndTurns(turnRoots) : null;
  if (wrappers) rewrites.push(wrappers.rewrite);
  observe(rewrites);
  followDrift({
    name: rewrites.find((r) => r.selectors?.name)?.selectors!.name,
    attribute: rewrites.find((r) => r.selectors?.attribute)?.selectors!.attribute,
  });

  const dialog = on.has('dialog') ? promoDialog() : null;
  dialog?.show();
  const mounted: Element[] = [];
  window.__SIM_DRIFT = {
    kinds,
    undrifted: (element, attr) => {
      const value = element.getAttribute(attr);
      if (value === null) return null;
      for (const r of rewrites) {
        const before = r.undrifted?.(attr, value);
        if (before != null) return before;
      }
      return value;
    },
  };

  return hookTurns(ui, {
    turnAdded(roots) {
      for (const root of roots) {
        turnRoots.add(root);
        wrappers?.wrapTurn(root);
      }
      if (!on.has('unmount')) return;
      mounted.push(...roots);
      // A virtualized transcript: only the newest turns stay in the DOM. An older element
      // holding a newer one (an exchange holding its answer) stays until that one goes too.
      const keep = mounted.slice(-MOUNTED_TURNS);
      for (const old of mounted.splice(0, mounted.length - MOUNTED_TURNS)) {
        if (!keep.some((k) => old.contains(k))) old.remove();
        else mounted.unshift(old);
      }
    },
    answerFinished(change) {
      if (on.has('no-finish')) unnameFinish(change);
      dialog?.show();
    },
  });
}

/** Runs the rewrites over the page now, and over whatever is added or changed later. */
function observe(rewrites: Rewrite[]): void {
  const sheetsDone = new Map<Rewrite, WeakSet<CSSStyleSheet>>(rewrites.map((r) => [r, new WeakSet()]));
  const stylesheets = () => {
    for (const sheet of Array.from(document.styleSheets)) {
      for (const r of rewrites) {
        if (!r.stylesheet || sheetsDone.get(r)!.has(sheet)) continue;
        sheetsDone.get(r)!.add(sheet);
        r.stylesheet(sheet);
      }
    }
  };
  const element = (el: Element) => {
    for (const r of rewrites) {
      if (!el.isConnected) return;
      r.element?.(el);
    }
  };
  const text = (node: Text) => {
    for (const r of rewrites) if (node.isConnected) r.text?.(node);
  };
  const subtree = (root: Node) => {
    if (root instanceof Element) {
      const all = [root, ...Array.from(root.querySelectorAll('*'))];
      for (const el of all) element(el);
    }
    if (!root.isConnected) return;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const texts: Text[] = [];
    for (let t = walker.currentNode.nodeType === Node.TEXT_NODE ? walker.currentNode : walker.nextNode(); t; t = walker.nextNode()) texts.push(t as Text);
    for (const t of texts) text(t);
  };

  subtree(document.documentElement);
  stylesheets();
  const observer = new MutationObserver((records) => {
    let styles = false;
    for (const record of records) {
      if (record.type === 'childList') {
        for (const node of Array.from(record.addedNodes)) {
          if (node.isConnected) subtree(node);
          styles ||= node.nodeName === 'STYLE' || node.nodeName === 'LINK';
        }
      } else if (record.type === 'attributes') {
        element(record.target as Element);
      } else if (record.target.isConnected) {
        text(record.target as Text);
        styles ||= record.target.parentNode?.nodeName === 'STYLE';
      }
    }
    if (styles) stylesheets();
    // Everything still queued is the rewrites' own doing, already in its drifted form.
    observer.takeRecords();
  });
  observer.observe(document.documentElement, {
    subtree: true,
    childList: true,
    characterData: true,
    attributes: true,
    attributeFilter: [...new Set(rewrites.flatMap((r) => r.attributes))],
  });
}

/** `testids`: every test hook renamed, the page's own `[data-testid=…]` styles with them. */
function renameTestIds(): Rewrite {
  const original = new Map<string, string>();
  const rename = (value: string) => {
    if (original.has(value)) return value;
    const renamed = renamedTestId(value);
    original.set(renamed, value);
    return renamed;
  };
  const selectors: SelectorRenames = { attribute: (attr, value) => (TEST_ATTRIBUTES.includes(attr) ? rename(value) : null) };
  return {
    attributes: TEST_ATTRIBUTES,
    element(el) {
      for (const attr of TEST_ATTRIBUTES) {
        const value = el.getAttribute(attr);
        if (value !== null && !original.has(value)) el.setAttribute(attr, rename(value));
      }
    },
    stylesheet: (sheet) => renameSelectors(sheet.cssRules, selectors),
    undrifted: (attr, value) => (TEST_ATTRIBUTES.includes(attr) ? (original.get(value) ?? value) : null),
    selectors,
  };
}

/**
 * `classes`: every class name and id replaced by its build hash, and every reference to an
 * id (labels, `use` icons) and every selector of the page's stylesheets with them. The
 * skin's own `classList` calls on a drifted element are translated too, as the site's code
 * would be rebuilt with the new names (without that, a `classList.remove('hidden')` would
 * miss its hashed class and leave a control dead).
 */
function hashClassesAndIds(): Rewrite {
  const original = new Map<string, string>();
  const hash = (name: string) => {
    if (original.has(name) || CONTENT_CLASS.test(name)) return name;
    const hashed = buildHash(name);
    original.set(hashed, name);
    return hashed;
  };
  const hashAll = (names: string) => names.split(/\s+/).filter(Boolean).map(hash).join(' ');
  const setIfChanged = (el: Element, attr: string, value: string) => {
    if (el.getAttribute(attr) !== value) el.setAttribute(attr, value);
  };
  const drifted = new WeakSet<DOMTokenList>();
  translateClassLists(drifted, hash);
  return {
    attributes: ['class', 'id', 'href', ...ID_REFERENCES],
    element(el) {
      const classes = el.getAttribute('class');
      if (classes !== null) {
        setIfChanged(el, 'class', hashAll(classes));
        drifted.add(el.classList);
      }
      const id = el.getAttribute('id');
      if (id) setIfChanged(el, 'id', hash(id));
      for (const attr of ID_REFERENCES) {
        const ids = el.getAttribute(attr);
        if (ids) setIfChanged(el, attr, hashAll(ids));
      }
      // In-page references: `<use href="#icon-copy">`, `<a href="#section">`.
      for (const attr of ['href', 'xlink:href']) {
        const ref = el.getAttribute(attr);
        if (ref && /^#./.test(ref)) setIfChanged(el, attr, `#${hash(ref.slice(1))}`);
      }
    },
    stylesheet: (sheet) => renameSelectors(sheet.cssRules, { name: hash }),
    selectors: { name: hash },
    undrifted(attr, value) {
      if (attr === 'class' || attr === 'id' || ID_REFERENCES.includes(attr)) {
        return value
          .split(/\s+/)
          .filter(Boolean)
          .map((name) => original.get(name) ?? name)
          .join(' ');
      }
      return null;
    },
  };
}

function translateClassLists(drifted: WeakSet<DOMTokenList>, hash: (name: string) => string): void {
  const proto = DOMTokenList.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ['add', 'remove', 'toggle', 'contains', 'replace']) {
    const own = proto[method]!;
    Object.defineProperty(proto, method, {
      configurable: true,
      writable: true,
      value(this: DOMTokenList, ...args: unknown[]) {
        return own.apply(this, drifted.has(this) ? args.map((a) => (typeof a === 'string' ? hash(a) : a)) : args);
      },
    });
  }
}

/** `labels`: accessible names, tooltips, placeholders and control texts in German. */
function translateLabels(): Rewrite {
  const english = new Map(Object.entries(GERMAN).map(([en, de]) => [de, en]));
  document.documentElement.lang = 'de';
  return {
    attributes: LABEL_ATTRIBUTES,
    element(el) {
      for (const attr of LABEL_ATTRIBUTES) {
        const value = el.getAttribute(attr);
        const german = value === null ? null : germanLabel(value);
        if (german !== null) el.setAttribute(attr, german);
      }
    },
    text(node) {
      if (!node.parentElement?.closest(NAMED_CONTROLS)) return;
      const words = node.data.trim();
      const german = words ? germanLabel(words) : null;
      if (german !== null) node.data = node.data.replace(words, german);
    },
    undrifted: (attr, value) => (LABEL_ATTRIBUTES.includes(attr) ? (english.get(value) ?? value) : null),
  };
}

/**
 * `no-copy`: every copy control removed — the answer's, the question's, a code block's.
 * A copy control is one named for copying (in any of the vocabulary's languages, by label,
 * test id, class, id or icon), or one whose click handler writes to the clipboard: the one
 * test that holds for an unlabelled icon button too. Watching handlers means wrapping
 * `addEventListener` from now on; the skins attach theirs as they build a finished turn.
 */
function removeCopyControls(): Rewrite {
  const copiers = new WeakSet<EventTarget>();
  const isCopyControl = (el: Element) => {
    if (!el.matches('button, [role="button"]')) return false;
    if (copiers.has(el)) return true;
    const names = ['aria-label', 'title', 'mattooltip', 'data-action', 'class', 'id', ...TEST_ATTRIBUTES].map((a) => el.getAttribute(a) ?? '');
    if (names.some((n) => COPY_WORDS.test(n))) return true;
    const icon = el.querySelector('[fonticon], [data-mat-icon-name], use');
    const iconName = icon && (icon.getAttribute('fonticon') ?? icon.getAttribute('data-mat-icon-name') ?? icon.getAttribute('href') ?? icon.getAttribute('xlink:href'));
    if (iconName && COPY_WORDS.test(iconName)) return true;
    const words = (el.textContent ?? '').trim();
    return words.length < 40 && COPY_WORDS.test(words);
  };
  const listen = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (this: EventTarget, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions) {
    if (type === 'click' && typeof listener === 'function' && /clipboard|execCommand\(\s*['"]copy/.test(String(listener))) {
      copiers.add(this);
      // A handler added to a control already on the page.
      if (this instanceof Element && this.isConnected) queueMicrotask(() => this.isConnected && isCopyControl(this) && this.remove());
    }
    return listen.call(this, type, listener, options);
  };
  return {
    attributes: ['aria-label', 'title', 'class', ...TEST_ATTRIBUTES],
    element(el) {
      if (isCopyControl(el)) el.remove();
    },
  };
}

/**
 * `wrappers`: every control, and every part of a turn, wrapped in one more element: a
 * release that added a tooltip trigger or a layout box around things. Structure cues with
 * `>` and `+` stop matching; nothing moves on screen (a control's wrapper has no box).
 */
function wrapControlsAndTurns(turnRoots: WeakSet<Element>): { rewrite: Rewrite; wrapTurn(root: Element): void } {
  const wrappers = new WeakSet<Element>();
  /** The box-less wrappers of controls: each holds its control alone. */
  const controlWrappers = new WeakSet<Element>();
  const wrap = (el: Element, box: boolean) => {
    const wrapper = document.createElement('div');
    if (!box) {
      wrapper.style.display = 'contents';
      controlWrappers.add(wrapper);
    }
    wrappers.add(wrapper);
    el.replaceWith(wrapper);
    wrapper.append(el);
  };
  return {
    rewrite: {
      attributes: [],
      element(el) {
        if (wrappers.has(el)) return;
        let parent = el.parentElement;
        // A script that puts an element beside a control (a file input before Send) puts it in
        // the control's wrapper: it goes beside the wrapper instead, on the same side.
        if (parent && controlWrappers.has(parent) && parent.children.length > 1) {
          if (el.nextElementSibling) parent.before(el);
          else parent.after(el);
          parent = el.parentElement;
        }
        if (parent && turnRoots.has(parent)) wrap(el, true);
        else if (el.matches(WRAPPED_CONTROLS) && !(parent && wrappers.has(parent)) && !el.parentElement?.closest('[contenteditable="true"]')) wrap(el, false);
      },
    },
    wrapTurn(root) {
      for (const child of Array.from(root.children)) if (!wrappers.has(child)) wrap(child, true);
    },
  };
}

function renameSelectors(rules: CSSRuleList, renames: SelectorRenames): void {
  for (const rule of Array.from(rules)) {
    if (rule instanceof CSSStyleRule) {
      const renamed = renameInSelector(rule.selectorText, renames);
      if (renamed !== rule.selectorText) rule.selectorText = renamed;
    }
    if ('cssRules' in rule) renameSelectors((rule as CSSGroupingRule).cssRules, renames);
  }
}

/**
 * The skin's interface, telling `hooks` which elements each new turn added (the turn's
 * roots: what a virtualized transcript would unmount) and when an answer has finished.
 */
function hookTurns(ui: SkinUi, hooks: TurnHooks): SkinUi {
  return {
    ...ui,
    addUserTurn(text) {
      hooks.turnAdded(addedBy(() => ui.addUserTurn(text)).added);
    },
    addAssistantTurn() {
      const { result: turn, added } = addedBy(() => ui.addAssistantTurn());
      hooks.turnAdded(added);
      // A skin that builds the turn's element only with its first words.
      let rooted = added.length > 0;
      let rendered = '';
      const hooked: AssistantTurn = {
        ...turn,
        render(html) {
          rendered = html;
          if (rooted) return turn.render(html);
          rooted = true;
          hooks.turnAdded(addedBy(() => turn.render(html)).added);
        },
        finish(markdown) {
          hooks.answerFinished(finishChanges(() => turn.finish(markdown), openingOf(rendered)));
        },
      };
      return hooked;
    },
  };
}

/** What `action` added to the page: its outermost new elements. */
function addedBy<T>(action: () => T): { result: T; added: Element[] } {
  const watcher = new MutationObserver(() => {});
  watcher.observe(document.body, { childList: true, subtree: true });
  const result = action();
  const nodes = watcher.takeRecords().flatMap((r) => Array.from(r.addedNodes));
  watcher.disconnect();
  const elements = nodes.filter((n): n is Element => n instanceof Element && n.isConnected);
  return { result, added: elements.filter((e) => !elements.some((other) => other !== e && other.contains(e))) };
}
