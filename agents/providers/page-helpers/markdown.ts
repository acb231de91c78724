/**
 * In the page: an answer's DOM converted to Markdown, for when no copy control is usable.
 * Code blocks keep their language and exact text, from an editor's lines or the block's own Copy.
 * While the answer renders, the same reading gives the blocks already done (`settledBlocks`).
 */
import type { Helpers } from './types.js';

export function addMarkdown(h: Helpers): void {
  /**
   * Set while an answer still renders: a block that only its Copy reads exactly (an editor,
   * which draws the lines in view) is not clicked then, and reads as this mark, which ends
   * what is certain. It never occurs in a page's text.
   */
  const UNREAD = '\u0000';
  let rendering = false;
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
      case 'math':
        return tex(node);
      default:
        return inner;
    }
  };
  /**
   * A formula as its TeX source: KaTeX and MathJax keep it in the MathML they write beside the
   * drawing (`<annotation encoding="application/x-tex">`), whatever the site's classes.
   */
  const tex = (math: Element): string => {
    // MathML keeps its symbols in <mi>, <mo>, <mn>: text right inside <math> is an annotation
    // whose tags a copy of the page lost (Qwen's real page 2026-05-21, written back by Chromium).
    const bare = Array.from(math.childNodes).filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent ?? '').join('').trim();
    const source = math.querySelector('annotation[encoding="application/x-tex"]')?.textContent?.trim() || bare || (math.textContent ?? '').trim();
    return math.getAttribute('display') === 'block' ? `$$${source}$$` : `$${source}$`;
  };
  /** KaTeX's drawing of a formula, hidden from screen readers beside the MathML it is read from. */
  const drawnTwin = (el: Element) => el.getAttribute('aria-hidden') === 'true' && Array.from(el.parentElement?.children ?? []).some((s) => s !== el && s.querySelector('math'));
  /** Text a reader sees: not hidden, not a control, not screen-reader-only chrome. */
  const visibleText = (el: Element) => {
    const style = window.getComputedStyle(el);
    return style.display !== 'none' && style.visibility !== 'hidden' && !el.matches('.sr-only, [aria-hidden="true"]:not(:has(*))') && !drawnTwin(el);
  };
  // Where providers put a code block's language when it is not a class on <code>:
  // a caption inside <pre> (Perplexity), a banner beside it (DeepSeek), a header (Qwen,
  // ChatGPT's CodeMirror blocks), a data attribute.
  const CODE_LABEL =
    'figcaption, [data-code-language], .code-language, .md-code-block-banner-wrap, .md-code-block-banner, [data-testid="code-language-indicator"], .qwen-markdown-code-header';
  /** A code editor inside a block (CodeMirror 6, Monaco): its lines are the code. */
  // Monaco marks its parts with `data-mprt` (8: the view lines) whatever a build does to classes.
  const EDITOR_LINES = '.cm-content > .cm-line, .view-lines > .view-line, [data-mprt="8"] > div';
  const EDITOR = '.cm-content, .view-lines, [data-mprt="8"]';
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
    // Monaco's `plaintext` says only that it highlights nothing (Qwen's of 2026-05 loads no
    // language modes, its header names the language): the header is read then.
    const mode = pre.querySelector('[data-language], [data-mode-id]');
    const editorLanguage = mode?.getAttribute('data-language') ?? mode?.getAttribute('data-mode-id');
    if (editorLanguage && editorLanguage !== 'plaintext') return editorLanguage;
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
   * The block's own Copy (beside its editor), clicked with the clipboard hook set (copy-hook.ts): an
   * editor keeps the code in its model and draws only the lines in view, tabs as spaces,
   * so this is the one exact source. Null when there is none or it copies nothing at once.
   */
  const blockCopy = (pre: Element): string | null => {
    const controls = Array.from(pre.querySelectorAll('button, [role="button"], [class*="action-item"]')).filter((c) => !c.closest(EDITOR));
    const copy = controls.find((c) => /copy|复制|コピー|копир|kopier|copier|copiar/i.test(h.accessibleName(c)) || c.querySelector('use[*|href*="copy"]')) ?? firstIconAction(pre);
    if (!copy) return null;
    const before = h.clipboard;
    h.clipboard = null;
    (copy as HTMLElement).click();
    const copied = h.clipboard;
    h.clipboard = before;
    return copied;
  };
  /**
   * An editor block's header when nothing in it is named or drawn as Copy any more (a build
   * hashed its classes and its icons' ids: Qwen's action items are bare `<div>`s around a
   * `<use href="#…">`): its first icon without words. Every code header seen puts Copy
   * first (Qwen's Copy then Download, confirmed by adapters on two real dumps; DeepSeek's;
   * ChatGPT's), and only an editor, which draws its code inexactly, asks for it.
   */
  const firstIconAction = (pre: Element): Element | null => {
    if (!pre.querySelector(`${EDITOR}, [role="code"][data-mode-id]`)) return null;
    const icon = Array.from(pre.querySelectorAll('svg')).find((svg) => !svg.closest(`${EDITOR}, [role="code"]`) && !(svg.parentElement?.textContent ?? '').trim());
    return icon?.parentElement ?? null;
  };
  /** The lines an editor draws, in line order; an error rather than code with lines missing. */
  const editorText = (pre: Element): string => {
    const lines = Array.from(pre.querySelectorAll(EDITOR_LINES)) as HTMLElement[];
    // Monaco places each line by its `top`: after a scroll the DOM order is not line order.
    const tops = lines.map((l) => parseFloat(l.style.top));
    if (tops.every((t) => !Number.isNaN(t))) lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
    // Monaco's view is as tall as all its lines and its padding, which is under a line (Qwen's
    // 15 px under two 19 px lines, real page 2026-05-21); CodeMirror leaves a gap for the lines
    // it does not draw.
    const view = pre.querySelector('.view-lines, [data-mprt="8"]') as HTMLElement | null;
    const all = view ? Math.floor(parseFloat(view.style.height) / parseFloat(view.style.lineHeight)) : NaN;
    if ((!Number.isNaN(all) && all > lines.length) || pre.querySelector('.cm-gap')) {
      throw new Error(`A code block shows ${lines.length} of its ${Number.isNaN(all) ? 'lines' : `${all} lines`} and no copy control gives the rest.`);
    }
    // Editors put a non-breaking space where the code has a space.
    return lines.map((l) => (l.textContent ?? '').replace(/\u00a0/g, ' ')).join('\n');
  };
  const codeText = (pre: Element): string => {
    if (pre.querySelector(EDITOR_LINES)) return rendering ? UNREAD : (blockCopy(pre) ?? editorText(pre));
    const code = pre.querySelector('code');
    if (code) return code.textContent ?? '';
    // Neither a <code> nor an editor known by its classes (a build renamed them): a block
    // with its own Copy holds more than its code (a header, lines without newlines), and
    // that Copy is the exact source; a bare <pre> is its code.
    if (rendering && pre.querySelector('button, [role="button"]')) return UNREAD;
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

  h.toMarkdown = (element) => children(element).filter(Boolean).join('\n\n');

  h.settledBlocks = (parts) => {
    rendering = true;
    let blocks: string[];
    try {
      // As answerMarkdown joins them: the parts that read as something, each its blocks.
      blocks = parts.map((part) => children(part).filter(Boolean)).filter((b) => b.join('\n\n').trim() !== '').flat();
    } finally {
      rendering = false;
    }
    // The last block may still grow; a block read only by a click is not read yet.
    const unread = blocks.findIndex((b) => b.includes(UNREAD));
    return blocks.slice(0, Math.min(unread === -1 ? blocks.length : unread, blocks.length - 1));
  };
}
