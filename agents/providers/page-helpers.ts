/**
 * Code that runs inside the provider's page. `installPageHelpers` is injected with
 * Playwright's addInitScript before any page script runs, so it must be self-contained:
 * it is serialised with Function.prototype.toString and may not use anything from this
 * module's scope.
 *
 * It does three things:
 * - intercepts the page's clipboard writes, so the copy button hands us the provider's own
 *   Markdown without ever touching the user's real clipboard;
 * - watches a turn with a MutationObserver (no polling) until the provider's finished-turn
 *   signal, an error card, a refusal, a limit banner, a login wall or a challenge appears;
 * - converts an answer's DOM to Markdown when no copy control is usable.
 */
import type { SelectorPack } from './site.js';

/** Something other than an answer: what the page showed, and its text. */
export type TurnProblem = { kind: 'errorCard' | 'refusal' | 'limitBanner' | 'loginWall' | 'challenge'; text: string };
export type TurnOutcome = { kind: 'finished' } | TurnProblem;

export interface PageHelpers {
  /** The last text the page wrote to the clipboard since `clearClipboard`. */
  clipboard: string | null;
  clearClipboard(): void;
  find(selectors: readonly string[], root?: ParentNode | null): Element | null;
  count(selectors: readonly string[]): number;
  /** Assistant turn number `index` (0-based), counted the way `count` and `watchTurn` count. */
  turn(pack: SelectorPack, index: number): Element | null;
  /** Within turn `index`: the first element of `role`, searched in the turn's scope. */
  inTurn(pack: SelectorPack, index: number, role: keyof SelectorPack, scope: string | null): Element | null;
  /** Resolves when turn number `index` (0-based among assistant turns) ends, one way or another. */
  watchTurn(pack: SelectorPack, index: number, scope: string | null): Promise<TurnOutcome>;
  /** Page-level conditions worth knowing before sending: login wall, challenge, limit banner. */
  blocker(pack: SelectorPack): TurnProblem | null;
  toMarkdown(element: Element): string;
}

declare global {
  interface Window {
    __chatbridge?: PageHelpers;
  }
}

export function installPageHelpers(): void {
  if (window.__chatbridge) return;

  const visible = (el: Element): boolean => {
    const html = el as HTMLElement;
    if (html.hidden || html.closest?.('[hidden]')) return false;
    const style = window.getComputedStyle(html);
    return style.display !== 'none' && style.visibility !== 'hidden';
  };

  // `text=/re/flags` matches an element by its own text; `CSS |text=/re/flags` an element
  // matching CSS whose text matches (so a banner's words are not found in an echoed prompt).
  const matchOne = (selector: string, root: ParentNode): Element | null => {
    const at = selector.indexOf('text=/');
    if (at >= 0) {
      const m = /^text=\/(.*)\/([a-z]*)$/.exec(selector.slice(at));
      if (!m) return null;
      const re = new RegExp(m[1]!, m[2]);
      const css = selector.slice(0, at).replace(/\|\s*$/, '').trim();
      if (css) {
        for (const el of Array.from(root.querySelectorAll(css))) if (visible(el) && re.test(el.textContent ?? '')) return el;
        return null;
      }
      const walker = document.createTreeWalker(root as Node, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (re.test(node.textContent ?? '') && node.parentElement && visible(node.parentElement)) return node.parentElement;
      }
      return null;
    }
    for (const el of Array.from(root.querySelectorAll(selector))) if (visible(el)) return el;
    return null;
  };

  const find = (selectors: readonly string[], root: ParentNode | null = document): Element | null => {
    if (!root) return null;
    for (const s of selectors) {
      const hit = matchOne(s, root);
      if (hit) return hit;
    }
    return null;
  };

  const turns = (selectors: readonly string[]): Element[] => {
    for (const s of selectors) {
      const all = Array.from(document.querySelectorAll(s));
      if (all.length > 0) return all;
    }
    return [];
  };

  /** Whether a turn-level role is present on the turn itself or within its scope. */
  const inTurn = (turn: Element, selectors: readonly string[], scope: string | null): Element | null => {
    for (const s of selectors) {
      if (!s.includes('text=/') && turn.matches(s)) return turn;
    }
    const root = (scope && turn.closest(scope)) || turn;
    return find(selectors, root);
  };

  const textOf = (el: Element) => (el.textContent ?? '').trim().slice(0, 500);

  const pageBlocker = (pack: SelectorPack): TurnProblem | null => {
    for (const role of ['challenge', 'loginWall', 'limitBanner'] as const) {
      const el = find(pack[role]);
      if (el) return { kind: role, text: textOf(el) };
    }
    return null;
  };

  const helpers: PageHelpers = {
    clipboard: null,
    clearClipboard() {
      helpers.clipboard = null;
    },
    find,
    count: (selectors) => turns(selectors).length,
    turn: (pack, index) => turns(pack.assistantTurn)[index] ?? null,
    inTurn: (pack, index, role, scope) => {
      const turn = turns(pack.assistantTurn)[index];
      return turn ? inTurn(turn, pack[role], scope) : null;
    },
    blocker: pageBlocker,
    watchTurn(pack, index, scope) {
      return new Promise<TurnOutcome>((resolve) => {
        const check = (): TurnOutcome | null => {
          const blocked = pageBlocker(pack);
          if (blocked) return blocked;
          const turn = turns(pack.assistantTurn)[index];
          if (!turn) {
            const pageError = find(pack.errorCard);
            return pageError ? { kind: 'errorCard', text: textOf(pageError) } : null;
          }
          for (const role of ['errorCard', 'refusal'] as const) {
            const el = inTurn(turn, pack[role], scope);
            if (el) return { kind: role, text: textOf(el) };
          }
          return inTurn(turn, pack.finished, scope) ? { kind: 'finished' } : null;
        };
        const first = check();
        if (first) return resolve(first);
        const observer = new MutationObserver(() => {
          const outcome = check();
          if (outcome) {
            observer.disconnect();
            resolve(outcome);
          }
        });
        observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      });
    },
    toMarkdown(element) {
      const inline = (node: Node): string => {
        if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
        if (!(node instanceof Element)) return '';
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
          default:
            return inner;
        }
      };
      // Where providers put a code block's language when it is not a class on <code>:
      // a caption inside <pre> (Perplexity), a banner beside it (DeepSeek), a data attribute.
      const CODE_LABEL = 'figcaption, [data-code-language], .code-language, .md-code-block-banner-wrap, .md-code-block-banner';
      const codeLanguage = (pre: Element): string => {
        const code = pre.querySelector('code');
        const m = /(?:language|lang)-([\w+#-]+)/.exec(`${code?.className ?? ''} ${pre.className}`);
        if (m) return m[1]!;
        const label = pre.querySelector(CODE_LABEL) ?? pre.parentElement?.querySelector(`:scope > ${CODE_LABEL.split(', ').join(', :scope > ')}`);
        if (!label) return '';
        const attr = label.getAttribute('data-code-language') ?? label.querySelector('[data-code-language]')?.getAttribute('data-code-language');
        if (attr) return attr;
        // The first piece of text: the label's buttons ("Copy", "Download") come after it.
        const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
        for (let t = walker.nextNode(); t; t = walker.nextNode()) if ((t.textContent ?? '').trim()) return t.textContent!.trim();
        return '';
      };
      const block = (node: Element): string[] => {
        if (node.matches(CODE_LABEL)) return [];
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
            const code = (node.querySelector('code') ?? node).textContent ?? '';
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
            return children(node);
        }
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
