/**
 * The simulator's Markdown renderer, for what answers hold: paragraphs with bold, italic,
 * inline code and links, headings, fenced code blocks, lists, tables, quotes and rules, as
 * the sites render them (plain elements; a link opens elsewhere). Runs in the simulated
 * site's page. Everything is escaped: prompts are user text, and an echoed prompt
 * (`[[sim:echo-markdown]]`) is rendered whole.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface CodeBlock {
  language: string;
  code: string;
}

/** How a skin renders what its site renders its own way. */
export interface MarkdownLook {
  /** A code block, shaped as the provider does. */
  renderCode?: (block: CodeBlock) => string;
  /** The attributes the site puts on an answer's links besides `href` (real pages: a class, `target`, `rel`). */
  linkAttributes?: Record<string, string>;
}

/** A link's address as sites let it through: the web, mail, or a place on the site; anything else stays text. */
const SAFE_HREF = /^(?:https?:|mailto:|[/#?])/i;
const LINK = /\[([^\]\n]+)\]\(([^()\s]+)\)/g;

/** Bold and italic in plain text. */
function emphasis(text: string): string {
  return escapeHtml(text)
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^*])\*([^*]+)\*/g, '$1<em>$2</em>');
}

/** Links, bold and italic in text that holds no code span. */
function linked(text: string, look: MarkdownLook): string {
  const attributes = Object.entries(look.linkAttributes ?? {})
    .map(([name, value]) => ` ${name}="${escapeHtml(value)}"`)
    .join('');
  let html = '';
  let at = 0;
  for (const m of text.matchAll(LINK)) {
    const [whole, words, href] = m as unknown as [string, string, string];
    html += emphasis(text.slice(at, m.index));
    html += SAFE_HREF.test(href) ? `<a href="${escapeHtml(href)}"${attributes}>${emphasis(words)}</a>` : emphasis(whole);
    at = m.index + whole.length;
  }
  return html + emphasis(text.slice(at));
}

/** A line's inline Markdown; nothing inside a code span is Markdown. */
function inline(text: string, look: MarkdownLook): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part, i) => (i % 2 === 1 ? `<code>${escapeHtml(part.slice(1, -1))}</code>` : linked(part, look)))
    .join('');
}

const FENCE = /^(`{3,}|~{3,})(.*)$/;
const HEADING = /^(#{1,6}) +(.*)$/;
const BULLET = /^- /;
const NUMBERED = /^\d+\. /;
const RULE = /^(?:-{3,}|\*{3,})\s*$/;
const QUOTE = /^> ?/;
/** Where a paragraph ends: a line that starts a block of another kind. */
const BLOCK_START = /^(?:`{3,}|~{3,}|#{1,6} |- |\d+\. |\||> ?|-{3,}\s*$|\*{3,}\s*$)/;

/** Renders Markdown; `look` lets a skin shape code blocks and links the way its provider does. */
export function renderMarkdown(markdown: string, look: MarkdownLook = {}): string {
  const renderCode = look.renderCode ?? defaultCode;
  const lines = markdown.split('\n');
  const out: string[] = [];
  /** The lines from here on that `pattern` matches, each without what it matched. */
  const run = (pattern: RegExp): string[] => {
    const taken: string[] = [];
    while (i < lines.length && pattern.test(lines[i]!)) taken.push(lines[i++]!.replace(pattern, ''));
    return taken;
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    const heading = HEADING.exec(line);
    if (fence) {
      const [, marks, language] = fence;
      const body: string[] = [];
      i++;
      while (i < lines.length && lines[i] !== marks) body.push(lines[i++]!);
      i++; // closing fence (absent while streaming)
      out.push(renderCode({ language: language!.trim(), code: body.length ? `${body.join('\n')}\n` : '' }));
    } else if (/^\s*$/.test(line)) {
      i++;
    } else if (heading) {
      i++;
      out.push(`<h${heading[1]!.length}>${inline(heading[2]!, look)}</h${heading[1]!.length}>`);
    } else if (RULE.test(line)) {
      i++;
      out.push('<hr>');
    } else if (BULLET.test(line) || NUMBERED.test(line)) {
      const tag = BULLET.test(line) ? 'ul' : 'ol';
      const items = run(tag === 'ul' ? BULLET : NUMBERED);
      out.push(`<${tag}>${items.map((item) => `<li>${inline(item, look)}</li>`).join('')}</${tag}>`);
    } else if (/^\|/.test(line)) {
      const rows = run(/^(?=\|)/).map((row) => row.replace(/^\||\|$/g, '').split('|').map((c) => c.trim()));
      const [head, , ...body] = rows;
      const cells = (r: string[], tag: string) => r.map((c) => `<${tag}>${inline(c, look)}</${tag}>`).join('');
      out.push(
        `<table><thead><tr>${cells(head ?? [], 'th')}</tr></thead><tbody>${body.map((r) => `<tr>${cells(r, 'td')}</tr>`).join('')}</tbody></table>`,
      );
    } else if (QUOTE.test(line)) {
      out.push(`<blockquote>${renderMarkdown(run(QUOTE).join('\n'), look)}</blockquote>`);
    } else {
      const para: string[] = [line];
      i++;
      while (i < lines.length && lines[i]!.trim() !== '' && !BLOCK_START.test(lines[i]!)) para.push(lines[i++]!);
      out.push(`<p>${inline(para.join('\n'), look)}</p>`);
    }
  }
  return out.join('');
}

function defaultCode({ language, code }: CodeBlock): string {
  return `<pre><code class="language-${escapeHtml(language)}">${escapeHtml(code)}</code></pre>`;
}
