/**
 * The contract as written: `../shared/spec/` beside the repository (api.md, decisions.md),
 * which the project keeps no copy of. Tests that hold the code to its text read it from there;
 * a clone with nothing beside it skips them with one line saying so (describeWithSpec), as
 * the real-pages tests do without their captures.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';

/** `../shared/spec` from the repository's root; CHATBRIDGE_SPEC names another folder. */
export const SPEC_DIR = process.env.CHATBRIDGE_SPEC ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/spec');

/** `describe` for tests that read the contract's text: skipped, with one line, where it is not beside the clone. */
export function describeWithSpec(name: string, body: () => void): void {
  if (existsSync(join(SPEC_DIR, 'api.md'))) return void describe(name, body);
  console.log(`skipped "${name}": no contract at ${SPEC_DIR} (../shared/spec beside the clone; CHATBRIDGE_SPEC names another folder)`);
  describe.skip(name, body);
}

export function specText(file: 'api.md' | 'decisions.md'): string {
  return readFileSync(join(SPEC_DIR, file), 'utf8');
}

/**
 * The rows of the first Markdown table under `heading` (a whole heading line, such as
 * "### Codes"), each as its cells keyed by the table's header; the section ends at the next
 * heading of any level.
 */
export function tableUnder(markdown: string, heading: string): Record<string, string>[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start < 0) throw new Error(`no "${heading}" in the text`);
  const section: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,6} /.test(line)) break;
    section.push(line);
  }
  const rows = section.filter((line) => line.trim().startsWith('|'));
  const cells = (line: string) => line.trim().replace(/^\||\|$/g, '').split('|').map((cell) => cell.trim());
  const [header, rule, ...body] = rows;
  if (!header || !rule || !/^[\s|:-]+$/.test(rule)) throw new Error(`no table under "${heading}"`);
  const names = cells(header);
  return body.map((line) => Object.fromEntries(cells(line).map((cell, i) => [names[i] ?? String(i), cell])));
}

/** The error codes a text names in code spans (`INVALID_REQUEST`, `TIMEOUT`). */
export function codesNamedIn(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/`([A-Z][A-Z_]*[A-Z])`/g)].map((m) => m[1]!));
}
