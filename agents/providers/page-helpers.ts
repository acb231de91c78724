/**
 * Code that runs inside the provider's page. `installPageHelpers` is injected with
 * Playwright's addInitScript before any page script runs, so it must be self-contained:
 * it is serialised with Function.prototype.toString and may not use anything from this
 * module's scope.
 *
 * It does five things:
 * - finds a role's element by the pack's cues (CSS, text, accessible name), reporting
 *   which cue matched;
 * - intercepts the page's clipboard writes, so the copy button hands us the provider's own
 *   Markdown without ever touching the user's real clipboard;
 * - remembers the assistant turns present before a prompt is sent, and watches for the
 *   first new one until it ends: the provider's finished signal (or its stop control gone
 *   and the text settled), an error card, a refusal, a limit banner, a login wall or a
 *   challenge — or says which role no cue finds, so the agent fails fast;
 * - names what stands in the way before acting (modal dialogs, overlays, an A/B chooser,
 *   a mode toggle), for the flow to clear;
 * - converts an answer's DOM to Markdown when no copy control is usable, and the page's
 *   DOM to a copy with the conversation's text blanked out, for a diagnostic bundle.
 */
import type { PageCue, PagePack, Role } from './site.js';

/** Something other than an answer: what the page showed, and its text. */
export type TurnProblem = { kind: 'errorCard' | 'refusal' | 'limitBanner' | 'loginWall' | 'challenge'; text: string };
/** A role the flow needs that no cue of the pack finds. */
export type MissingRole = { kind: 'missing'; role: Role; detail: string };
export type TurnOutcome = { kind: 'finished'; by: 'marker' | 'settled' } | TurnProblem | MissingRole;

/** What stands between the flow and the composer, for it to clear (an element to act on, by its index in `obstacles`). */
export type Obstacle =
  | { kind: 'chooser'; text: string } // an A/B chooser: click `preferFirst`
  | { kind: 'mode'; text: string } // a Chat/Work toggle off Chat: click `chatMode`
  | { kind: 'dialog'; text: string } // a modal dialog: Escape, then its close control
  | { kind: 'overlay'; text: string }; // something over the composer that is not a dialog

export interface WatchLimits {
  /** How long the new turn may take to appear while nothing shows the page at work. */
  appearMs: number;
  /** ... and while the stop control shows (a search or a long think before the answer starts). */
  appearWorkingMs: number;
  /** Without the finished signal: how long the answer must stay unchanged, the stop control gone. */
  settleMs: number;
}

export interface PageHelpers {
  /** The last text the page wrote to the clipboard since `clearClipboard`. */
  clipboard: string | null;
  clearClipboard(): void;
  /** The first visible element a cue finds, trying the cues in order. */
  find(cues: readonly PageCue[] | undefined, root?: ParentNode | null): Element | null;
  /** Which cue (its index) finds a visible element now, or -1. */
  which(cues: readonly PageCue[] | undefined, root?: ParentNode | null): number;
  /** The assistant turns on the page, in document order (by the first cue that finds any). */
  turns(pack: PagePack): Element[];
  /** Remembers the assistant turns present now: the next `newTurn` is one that is not among them. */
  markTurns(pack: PagePack): number;
  /** The first assistant turn that appeared since `markTurns`. */
  newTurn(pack: PagePack): Element | null;
  /** Within the new turn (or, with `last`, the last turn): the first element of `role`, searched in the turn's scope. */
  inTurn(pack: PagePack, role: Role, scope: string | null, last?: boolean): Element | null;
  /** Resolves when the new turn ends, one way or another, or a role it needs cannot be found. */
  watchTurn(pack: PagePack, scope: string | null, limits: WatchLimits): Promise<TurnOutcome>;
  /** Page-level conditions that end a job: challenge, login wall, limit banner. */
  blocker(pack: PagePack): TurnProblem | null;
  /** What stands in the way of acting on the page, if anything. */
  obstacle(pack: PagePack): Obstacle | null;
  /** The element to click for an obstacle (the chooser's first answer, the Chat toggle, a dialog's close control). */
  obstacleControl(pack: PagePack, obstacle: Obstacle): Element | null;
  /** Per role, the index of the cue that finds it now (turn roles in the new or last turn), or -1. */
  report(pack: PagePack, scope: string | null): Partial<Record<Role, number>>;
  /**
   * Marks what holds the conversation (the turns, the composer, any text that holds a piece
   * of `secrets`) and blurs it on screen, for a screenshot that shows the page's shape but
   * not its words; `false` takes the marks and the blur away again.
   */
  conceal(pack: PagePack, secrets: string[], on: boolean): void;
  /** The page's HTML with the marked text (and all script text) blanked out; call between `conceal(…, true)` and `conceal(…, false)`. */
  concealedHtml(): string;
  toMarkdown(element: Element): string;
}

declare global {
  interface Window {
    __chatbridge?: PageHelpers;
  }
}

export function installPageHelpers(): void {
  if (window.__chatbridge) return;

  /**
   * Shown to a person: not hidden, not display:none/visibility:hidden, and bigger than the
   * 1-pixel boxes screen-reader-only text and invisible frames use.
   */
  const visible = (el: Element): boolean => {
    const html = el as HTMLElement;
    if (html.hidden || html.closest?.('[hidden]')) return false;
    const style = window.getComputedStyle(html);
    if (style.display === 'none' || style.visibility === 'hidden') return false;
    if (style.display === 'contents') return true;
    const box = html.getBoundingClientRect();
    return box.width > 1 || box.height > 1;
  };

  const regex = (pair: readonly [string, string] | undefined) => (pair ? new RegExp(pair[0], pair[1]) : null);

  /** What assistive technology would call the element: its label, else its title, else its text. */
  const accessibleName = (el: Element): string => {
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

  const matchCue = (cue: PageCue, root: ParentNode): Element | null => {
    const text = regex(cue.text);
    const name = regex(cue.name);
    let all: Element[];
    try {
      all = Array.from(root.querySelectorAll(cue.css));
    } catch {
      return null; // a selector this browser cannot parse finds nothing (a user's override, an old pack)
    }
    for (const el of all) {
      if (!visible(el)) continue;
      if (text && !text.test(el.textContent ?? '')) continue;
      if (name && !name.test(accessibleName(el))) continue;
      return el;
    }
    return null;
  };

  const which = (cues: readonly PageCue[] | undefined, root: ParentNode | null = document): number => {
    if (!cues || !root) return -1;
    return cues.findIndex((cue) => matchCue(cue, root) !== null);
  };

  const find = (cues: readonly PageCue[] | undefined, root: ParentNode | null = document): Element | null => {
    if (!cues || !root) return null;
    for (const cue of cues) {
      const hit = matchCue(cue, root);
      if (hit) return hit;
    }
    return null;
  };

  const turns = (pack: PagePack): Element[] => {
    for (const cue of pack.assistantTurn ?? []) {
      let all: Element[];
      try {
        all = Array.from(document.querySelectorAll(cue.css));
      } catch {
        continue;
      }
      const shown = all.filter((el) => visible(el) && (!cue.text || regex(cue.text)!.test(el.textContent ?? '')));
      // An element inside another match is part of that turn, not a turn of its own.
      const outer = shown.filter((el) => !shown.some((other) => other !== el && other.contains(el)));
      if (outer.length > 0) return outer;
    }
    return [];
  };

  /**
   * What identifies a turn across re-renders: a virtualized transcript may replace an old
   * turn's element by a new one for the same message, which must not pass for a new turn.
   */
  const IDENTITY = ['data-message-id', 'data-turn-key', 'data-virtual-list-item-key', 'data-turn-id', 'data-rs-index', 'data-testid', 'id'];
  const identity = (turn: Element, all: Element[], composer: Element | null): string | null => {
    // The turn's own attributes, or those of wrappers that hold this turn and no other turn
    // and not the composer (past that is the page: with one turn mounted, its `#root`).
    for (let el: Element | null = turn; el && el !== document.body; el = el.parentElement) {
      if (el !== turn && (all.some((other) => other !== turn && el!.contains(other)) || (composer && el.contains(composer)))) break;
      for (const attr of IDENTITY) {
        // An id on a wrapper names a region of the page (`#chat-message-container`), not a message.
        if (attr === 'id' && el !== turn) continue;
        const value = el.getAttribute(attr);
        if (value && (attr !== 'data-testid' || /\d/.test(value))) return `${attr}=${value}`;
      }
    }
    return null;
  };

  const seen = { elements: new WeakSet<Element>(), ids: new Set<string>() };

  const newTurn = (pack: PagePack): Element | null => {
    const all = turns(pack);
    const composer = find(pack.composer);
    return (
      all.find((t) => {
        if (seen.elements.has(t)) return false;
        const id = identity(t, all, composer);
        // A value another turn on the page shares identifies neither (a test id every turn
        // carries, renamed so that it holds a digit): then this is a different turn.
        return !id || !seen.ids.has(id) || all.some((other) => other !== t && identity(other, all, composer) === id);
      }) ?? null
    );
  };

  /** Whether a turn-level role is present on the turn itself or within its scope. */
  const inScope = (turn: Element, cues: readonly PageCue[] | undefined, scope: string | null): Element | null => {
    for (const cue of cues ?? []) {
      try {
        if (!cue.text && !cue.name && turn.matches(cue.css)) return turn;
      } catch {
        // an unparsable selector: see matchCue
      }
    }
    const root = (scope && turn.closest(scope)) || turn;
    return find(cues, root);
  };

  const textOf = (el: Element) => (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 500);

  /**
   * A Cloudflare interstitial, recognised by the page rather than by its widget (the
   * Turnstile frame sits in a closed shadow root): its title, its `_cf_chl_opt` settings,
   * or its challenge-platform resources on a page that has no composer. A normal page may
   * load an invisible Turnstile or Cloudflare's bot scripts; those have the composer.
   */
  const cloudflare = (pack: PagePack): TurnProblem | null => {
    const title = document.title.trim();
    const byTitle = /^(just a moment|attention required|un instant|einen moment|un momento|um momento|один момент|请稍候|しばらくお待ちください)/i.test(title);
    const byScript = 'cf_chl_opt' in window || '_cf_chl_opt' in window;
    const byResource =
      !!document.querySelector('script[src*="/cdn-cgi/challenge-platform/"], form[action*="__cf_chl"], iframe[src*="challenges.cloudflare.com"]') &&
      !find(pack.composer);
    return byTitle || byScript || byResource ? { kind: 'challenge', text: title || 'Cloudflare challenge' } : null;
  };

  const pageBlocker = (pack: PagePack): TurnProblem | null => {
    const challenge = cloudflare(pack);
    if (challenge) return challenge;
    for (const role of ['challenge', 'loginWall', 'limitBanner'] as const) {
      const el = find(pack[role]);
      if (el) return { kind: role, text: textOf(el) };
    }
    return null;
  };

  const MODAL = '[role="dialog"][aria-modal="true"], [role="alertdialog"], dialog[open]';
  const CLOSE_NAME = /^\s*(?:close|dismiss|got it|not now|maybe later|no thanks|ok(?:ay)?|schließen|verstanden|nicht jetzt|fermer|compris|pas maintenant|cerrar|entendido|ahora no|fechar|agora não|закрыть|понятно|не сейчас|关闭|知道了|閉じる|了解|×|✕)\s*$/i;

  const openDialog = (): Element | null => Array.from(document.querySelectorAll(MODAL)).find(visible) ?? null;

  const selected = (el: Element) =>
    ['aria-pressed', 'aria-selected', 'aria-checked'].some((a) => el.getAttribute(a) === 'true') ||
    /^(on|active|checked|selected)$/.test(el.getAttribute('data-state') ?? '');

  /** Whether `el` or an ancestor is taken out of the flow to sit over the page (what an overlay is). */
  const floating = (el: Element): boolean => {
    for (let at: Element | null = el; at && at !== document.body; at = at.parentElement) {
      const position = window.getComputedStyle(at).position;
      if (position === 'fixed' || position === 'absolute' || position === 'sticky') return true;
    }
    return false;
  };

  /**
   * What sits on top of `el` near its top edge, if that is a floating layer that is
   * neither `el`, inside it, nor around it. An element scrolled out of view is not judged.
   */
  const coveredBy = (el: Element): Element | null => {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return null;
    const x = box.left + box.width / 2;
    const y = box.top + Math.min(box.height / 2, 20);
    if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) return null;
    const top = document.elementFromPoint(x, y);
    if (!top || top === el || el.contains(top) || top.contains(el)) return null;
    return floating(top) ? top : null;
  };

  /** A dialog's name for a log line: its label or heading, never its body (which could quote the conversation). */
  const dialogName = (dialog: Element): string =>
    (dialog.getAttribute('aria-label') ?? dialog.querySelector('h1, h2, h3, [role="heading"]')?.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 80);

  /** The outermost element of what covers `composer`: where its own close control would be. */
  const overlayLayer = (cover: Element, composer: Element): Element => {
    let layer = cover;
    while (layer.parentElement && layer.parentElement !== document.body && !layer.parentElement.contains(composer)) layer = layer.parentElement;
    return layer;
  };

  const obstacle = (pack: PagePack): Obstacle | null => {
    // A login wall or a challenge is not in the way: it is the answer to report.
    if (pageBlocker(pack)) return null;
    if (find(pack.preferFirst)) return { kind: 'chooser', text: '' };
    const mode = find(pack.chatMode);
    if (mode && !selected(mode)) return { kind: 'mode', text: accessibleName(mode).slice(0, 40) };
    const dialog = openDialog();
    if (dialog) return { kind: 'dialog', text: dialogName(dialog) };
    const composer = find(pack.composer);
    const cover = composer && coveredBy(composer);
    if (cover) return { kind: 'overlay', text: '' };
    return null;
  };

  const dialogClose = (pack: PagePack, dialog: Element): Element | null =>
    find(pack.dialogClose, dialog) ??
    Array.from(dialog.querySelectorAll('button, [role="button"], a[href="#"]')).find((b) => visible(b) && CLOSE_NAME.test(accessibleName(b))) ??
    null;

  const obstacleControl = (pack: PagePack, o: Obstacle): Element | null => {
    switch (o.kind) {
      case 'chooser':
        return find(pack.preferFirst);
      case 'mode':
        return find(pack.chatMode);
      case 'dialog': {
        const dialog = openDialog();
        return dialog && dialogClose(pack, dialog);
      }
      case 'overlay': {
        const composer = find(pack.composer);
        const cover = composer && coveredBy(composer);
        return cover ? dialogClose(pack, overlayLayer(cover, composer)) : null;
      }
    }
  };

  const helpers: PageHelpers = {
    clipboard: null,
    clearClipboard() {
      helpers.clipboard = null;
    },
    find,
    which,
    turns,
    markTurns(pack) {
      const present = turns(pack);
      seen.elements = new WeakSet(present);
      const composer = find(pack.composer);
      seen.ids = new Set(present.map((t) => identity(t, present, composer)).filter((id): id is string => id !== null));
      return present.length;
    },
    newTurn,
    inTurn(pack, role, scope, last = false) {
      const turn = last ? (turns(pack).at(-1) ?? null) : newTurn(pack);
      return turn ? inScope(turn, pack[role], scope) : null;
    },
    blocker: pageBlocker,
    obstacle,
    obstacleControl,
    watchTurn(pack, scope, limits) {
      return new Promise<TurnOutcome>((resolve) => {
        const started = performance.now();
        let working = false;
        let lastText: string | null = null;
        let lastChange = started;
        let timer = 0;

        const check = (): TurnOutcome | null => {
          const now = performance.now();
          const blocked = pageBlocker(pack);
          if (blocked) return blocked;
          const stopShown = find(pack.stop) !== null;
          working ||= stopShown;
          const turn = newTurn(pack);
          if (!turn) {
            const pageError = find(pack.errorCard);
            if (pageError) return { kind: 'errorCard', text: textOf(pageError) };
            const limit = stopShown ? limits.appearWorkingMs : limits.appearMs;
            if (now - started >= limit) {
              const why = working ? 'the page is answering, but no cue finds the answer' : 'no answer appeared after sending';
              return { kind: 'missing', role: 'assistantTurn', detail: why };
            }
            return null;
          }
          for (const role of ['errorCard', 'refusal'] as const) {
            const el = inScope(turn, pack[role], scope);
            if (el) return { kind: role, text: textOf(el) };
          }
          if (inScope(turn, pack.finished, scope)) return { kind: 'finished', by: 'marker' };
          // Without the provider's own signal: the stop control gone and the text settled.
          const text = (find(pack.answer, turn) ?? turn).textContent ?? '';
          if (text !== lastText) {
            lastText = text;
            lastChange = now;
          }
          if (!stopShown && text.trim() !== '' && now - lastChange >= limits.settleMs) return { kind: 'finished', by: 'settled' };
          return null;
        };

        const settle = (outcome: TurnOutcome) => {
          observer.disconnect();
          window.clearTimeout(timer);
          resolve(outcome);
        };
        /** Checks now, and again when the next time limit could pass with nothing changing in the page. */
        const run = () => {
          const outcome = check();
          if (outcome) return settle(outcome);
          window.clearTimeout(timer);
          const now = performance.now();
          const next = Math.min(started + limits.appearWorkingMs, lastChange + limits.settleMs, started + limits.appearMs);
          timer = window.setTimeout(run, Math.max(50, (next > now ? next - now : limits.settleMs) + 20));
        };
        const observer = new MutationObserver(run);
        observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
        run();
      });
    },
    report(pack, scope) {
      const out: Partial<Record<Role, number>> = {};
      const turn = newTurn(pack) ?? turns(pack).at(-1) ?? null;
      for (const role of Object.keys(pack) as Role[]) {
        const turnLevel = role === 'answer' || role === 'finished' || role === 'copy' || role === 'refusal';
        if (!turnLevel) {
          out[role] = which(pack[role]);
        } else if (turn) {
          const cues = pack[role] ?? [];
          out[role] = cues.findIndex((cue) => inScope(turn, [cue], scope) !== null);
        } else {
          out[role] = -1;
        }
      }
      return out;
    },
    conceal(pack, secrets, on) {
      const MARK = 'data-chatbridge-conceal';
      document.getElementById('__chatbridge-conceal')?.remove();
      for (const el of Array.from(document.querySelectorAll(`[${MARK}]`))) el.removeAttribute(MARK);
      if (!on) return;
      const pieces = secrets.map((p) => p.trim()).filter((p) => p.length > 0);
      const holdsSecret = (text: string) => {
        const t = text.trim();
        return t.length > 0 && pieces.some((p) => p.includes(t) || (t.length >= 24 && t.includes(p.slice(0, 24))));
      };
      const marked = [...turns(pack), find(pack.composer)].filter((el): el is Element => el !== null);
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.parentElement && holdsSecret(node.textContent ?? '')) marked.push(node.parentElement);
      }
      for (const el of marked) el.setAttribute(MARK, '');
      const style = document.createElement('style');
      style.id = '__chatbridge-conceal';
      style.textContent = `[${MARK}] { filter: blur(9px) !important; }`;
      document.head.append(style);
    },
    concealedHtml() {
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
    },
    toMarkdown(element) {
      const inline = (node: Node): string => {
        if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
        if (!(node instanceof Element)) return '';
        if (!visibleText(node)) return '';
        const inner = Array.from(node.childNodes).map(inline).join('');
        switch (node.tagName) {
          case 'STRONG':
          case 'B':
            return `**${inner}**`;
          case 'EM':
          case 'I':
            return `*${inner}*`;
          case 'CODE':
            return `\`${node.textContent ?? ''}\``;
          case 'A':
            return `[${inner}](${node.getAttribute('href') ?? ''})`;
          case 'BR':
            return '\n';
          case 'BUTTON':
          case 'svg':
            return '';
          default:
            return inner;
        }
      };
      /** Text a reader sees: not hidden, not a control, not screen-reader-only chrome. */
      const visibleText = (el: Element) => {
        const style = window.getComputedStyle(el);
        return style.display !== 'none' && style.visibility !== 'hidden' && !el.matches('.sr-only, [aria-hidden="true"]:not(:has(*))');
      };
      // Where providers put a code block's language when it is not a class on <code>:
      // a caption inside <pre> (Perplexity), a banner beside it (DeepSeek), a header (Qwen,
      // ChatGPT's CodeMirror blocks), a data attribute.
      const CODE_LABEL =
        'figcaption, [data-code-language], .code-language, .md-code-block-banner-wrap, .md-code-block-banner, [data-testid="code-language-indicator"], .qwen-markdown-code-header';
      /** A code editor inside a block (CodeMirror 6, Monaco): its lines are the code. */
      const EDITOR_LINES = '.cm-content > .cm-line, .view-lines > .view-line';
      const EDITOR = '.cm-content, .view-lines';
      /** A code block's header beside its <pre> (a language, Copy): the box around them holds just the two. */
      const headerBeside = (node: Element): boolean =>
        node.tagName === 'DIV' && node.nextElementSibling?.tagName === 'PRE' && node.parentElement?.children.length === 2;
      const codeLanguage = (pre: Element): string => {
        const code = pre.querySelector('code');
        const m = /(?:language|lang)-([\w+#-]+)/.exec(`${code?.className ?? ''} ${pre.className}`);
        if (m) return m[1]!;
        const label = pre.querySelector(CODE_LABEL) ?? pre.parentElement?.querySelector(`:scope > ${CODE_LABEL.split(', ').join(', :scope > ')}`);
        const attr = label?.getAttribute('data-code-language') ?? label?.querySelector('[data-code-language]')?.getAttribute('data-code-language');
        if (attr) return attr;
        // The editor's own word for what it highlights (CodeMirror 6's `data-language`, Monaco's
        // `data-mode-id`): the libraries write these themselves, whatever the site's classes.
        const mode = pre.querySelector('[data-language], [data-mode-id]');
        const editorLanguage = mode?.getAttribute('data-language') ?? mode?.getAttribute('data-mode-id');
        if (editorLanguage) return editorLanguage;
        // The first piece of text outside the code itself: a header's buttons ("Copy") come after it.
        // Headers show a display name ("Bash", "Python"); a fence names the language in lower case.
        // Without a label the pre's own header counts, when the code sits apart from it (an
        // editor, a <code>), or a header beside a bare <pre> in a box that holds just the two:
        // a label known only by a test id or a class is still a header.
        const beside = Array.from(pre.parentElement?.children ?? []).find(headerBeside) ?? null;
        const from = label ?? (pre.querySelector(`${EDITOR}, code`) ? pre : beside);
        if (!from) return '';
        const walker = document.createTreeWalker(from, NodeFilter.SHOW_TEXT);
        for (let t = walker.nextNode(); t; t = walker.nextNode()) {
          if (t.parentElement?.closest(`${EDITOR}, code, button`)) continue;
          const word = (t.textContent ?? '').trim();
          // Line numbers in an editor's gutter are not a header.
          if (/^\d*$/.test(word)) continue;
          return /^[\w+#.-]{1,24}$/.test(word) ? word.toLowerCase() : '';
        }
        return '';
      };
      /**
       * The block's own Copy (beside its editor), clicked with the clipboard intercepted: an
       * editor keeps the code in its model and draws only the lines in view, tabs as spaces,
       * so this is the one exact source. Null when there is none or it copies nothing at once.
       */
      const blockCopy = (pre: Element): string | null => {
        const controls = Array.from(pre.querySelectorAll('button, [role="button"], [class*="action-item"]')).filter((c) => !c.closest(EDITOR));
        const copy = controls.find((c) => /copy|复制|コピー|копир|kopier|copier|copiar/i.test(accessibleName(c)) || c.querySelector('use[*|href*="copy"]'));
        if (!copy) return null;
        const before = helpers.clipboard;
        helpers.clipboard = null;
        (copy as HTMLElement).click();
        const copied = helpers.clipboard;
        helpers.clipboard = before;
        return copied;
      };
      /** The lines an editor draws, in line order; an error rather than code with lines missing. */
      const editorText = (pre: Element): string => {
        const lines = Array.from(pre.querySelectorAll(EDITOR_LINES)) as HTMLElement[];
        // Monaco places each line by its `top`: after a scroll the DOM order is not line order.
        const tops = lines.map((l) => parseFloat(l.style.top));
        if (tops.every((t) => !Number.isNaN(t))) lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
        // Monaco's view is as tall as all its lines; CodeMirror leaves a gap for the lines it does not draw.
        const view = pre.querySelector('.view-lines') as HTMLElement | null;
        const all = view ? Math.round(parseFloat(view.style.height) / parseFloat(view.style.lineHeight)) : NaN;
        if ((!Number.isNaN(all) && all > lines.length) || pre.querySelector('.cm-gap')) {
          throw new Error(`A code block shows ${lines.length} of its ${Number.isNaN(all) ? 'lines' : `${all} lines`} and no copy control gives the rest.`);
        }
        // Editors put a non-breaking space where the code has a space.
        return lines.map((l) => (l.textContent ?? '').replace(/\u00a0/g, ' ')).join('\n');
      };
      const codeText = (pre: Element): string => {
        if (pre.querySelector(EDITOR_LINES)) return blockCopy(pre) ?? editorText(pre);
        const code = pre.querySelector('code');
        if (code) return code.textContent ?? '';
        // Neither a <code> nor an editor known by its classes (a build renamed them): a block
        // with its own Copy holds more than its code (a header, lines without newlines), and
        // that Copy is the exact source; a bare <pre> is its code.
        return blockCopy(pre) ?? pre.textContent ?? '';
      };
      const block = (node: Element): string[] => {
        if (node.matches(CODE_LABEL) || headerBeside(node) || !visibleText(node)) return [];
        switch (node.tagName) {
          case 'P':
            return [inline(node)];
          case 'H1':
          case 'H2':
          case 'H3':
          case 'H4':
          case 'H5':
          case 'H6':
            return [`${'#'.repeat(Number(node.tagName[1]))} ${inline(node)}`];
          case 'PRE': {
            const code = codeText(node);
            const body = code.endsWith('\n') ? code : `${code}\n`;
            const longest = Math.max(2, ...Array.from(body.matchAll(/`+/g), (m) => m[0].length));
            const fence = '`'.repeat(longest + 1);
            return [`${fence}${codeLanguage(node)}\n${body}${fence}`];
          }
          case 'UL':
          case 'OL': {
            const ordered = node.tagName === 'OL';
            return [
              Array.from(node.children)
                .filter((li) => li.tagName === 'LI')
                .map((li, i) => `${ordered ? `${i + 1}.` : '-'} ${inline(li).trim()}`)
                .join('\n'),
            ];
          }
          case 'BLOCKQUOTE':
            return [children(node).join('\n\n').split('\n').map((l) => `> ${l}`.trimEnd()).join('\n')];
          case 'TABLE': {
            const rows = Array.from(node.querySelectorAll('tr')).map((tr) =>
              Array.from(tr.children).map((c) => inline(c).trim().replace(/\|/g, '\\|')),
            );
            if (rows.length === 0) return [];
            const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
            return [[line(rows[0]!), line(rows[0]!.map(() => '---')), ...rows.slice(1).map(line)].join('\n')];
          }
          case 'HR':
            return ['---'];
          case 'BUTTON':
          case 'svg':
          case 'SCRIPT':
          case 'STYLE':
            return [];
          default:
            // A code block whose editor is not inside a <pre> (some CodeMirror builds).
            if (node.matches(':is(div, section)[class*="code"]:has(.cm-content, .view-lines)') && !node.querySelector('pre')) return block(asPre(node));
            return children(node);
        }
      };
      /** Reads an editor block as a <pre> would be read, without touching the page. */
      const asPre = (node: Element): Element => {
        const pre = document.createElement('pre');
        pre.append(node.cloneNode(true));
        return pre;
      };
      const children = (node: Element): string[] => {
        const out: string[] = [];
        let text = '';
        for (const child of Array.from(node.childNodes)) {
          if (child instanceof Element && !['STRONG', 'B', 'EM', 'I', 'CODE', 'A', 'BR', 'SPAN'].includes(child.tagName)) {
            if (text.trim()) out.push(text.trim());
            text = '';
            out.push(...block(child));
          } else {
            text += inline(child);
          }
        }
        if (text.trim()) out.push(text.trim());
        return out;
      };
      return children(element).filter(Boolean).join('\n\n');
    },
  };

  // Never let the page reach the user's real clipboard: keep what it writes for ChatBridge.
  const clipboard = navigator.clipboard;
  if (clipboard) {
    const keep = (text: string) => {
      helpers.clipboard = text;
      return Promise.resolve();
    };
    Object.defineProperty(clipboard, 'writeText', { value: keep, configurable: true });
    Object.defineProperty(clipboard, 'write', {
      value: async (items: ClipboardItem[]) => {
        for (const item of items) {
          if (item.types.includes('text/plain')) return keep(await (await item.getType('text/plain')).text());
        }
      },
      configurable: true,
    });
  }
  document.addEventListener(
    'copy',
    (event) => {
      // Copy buttons built on execCommand('copy') fill the event's data in their own handler.
      queueMicrotask(() => {
        const text = event.clipboardData?.getData('text/plain');
        if (text) helpers.clipboard = text;
      });
    },
    true,
  );

  window.__chatbridge = helpers;
}
