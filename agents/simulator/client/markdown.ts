/**
 * The simulator's Markdown renderer, for the subset its answers use: paragraphs with
 * bold/italic/inline code, fenced code blocks, lists, tables and quotes. Runs in the
 * simulated site's page. Everything is escaped: prompts are user text.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^*])\*([^*]+)\*/g, '$1<em>$2</em>');
}

export interface CodeBlock {
  language: string;
  code: string;
}

/** Renders Markdown; `renderCode` lets a skin shape code blocks the way its provider does. */
export function renderMarkdown(markdown: string, renderCode: (block: CodeBlock) => string = defaultCode): string {
  const lines = markdown.split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = /^(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence) {
      const [, marks, language] = fence;
      const body: string[] = [];
      i++;
      while (i < lines.length && lines[i] !== marks) body.push(lines[i++]!);
      i++; // closing fence (absent while streaming)
      out.push(renderCode({ language: language!.trim(), code: body.length ? `${body.join('\n')}\n` : '' }));
    } else if (/^\s*$/.test(line)) {
      i++;
    } else if (/^- /.test(line)) {
      const items: string[] = [];
      while (i < lines.length && /^- /.test(lines[i]!)) items.push(`<li>${inline(lines[i++]!.slice(2))}</li>`);
      out.push(`<ul>${items.join('')}</ul>`);
    } else if (/^\|/.test(line)) {
      const rows: string[][] = [];
      while (i < lines.length && /^\|/.test(lines[i]!)) {
        rows.push(lines[i++]!.replace(/^\||\|$/g, '').split('|').map((c) => c.trim()));
      }
      const [head, , ...body] = rows;
      const cells = (r: string[], tag: string) => r.map((c) => `<${tag}>${inline(c)}</${tag}>`).join('');
      out.push(
        `<table><thead><tr>${cells(head ?? [], 'th')}</tr></thead><tbody>${body.map((r) => `<tr>${cells(r, 'td')}</tr>`).join('')}</tbody></table>`,
      );
    } else if (/^> ?/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^> ?/.test(lines[i]!)) quoted.push(lines[i++]!.replace(/^> ?/, ''));
      out.push(`<blockquote>${renderMarkdown(quoted.join('\n'), renderCode)}</blockquote>`);
    } else {
      const para: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '' && !/^(`{3,}|~{3,}|- |\||> ?)/.test(lines[i]!)) para.push(lines[i++]!);
      out.push(`<p>${inline(para.join('\n'))}</p>`);
    }
  }
  return out.join('');
}

function defaultCode({ language, code }: CodeBlock): string {
  return `<pre><code class="language-${escapeHtml(language)}">${escapeHtml(code)}</code></pre>`;
}
