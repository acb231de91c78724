/**
 * The real captured pages of the live sites, kept outside the repository (their licences
 * differ: the folder's own NOTICE.md lists each page's source and licence) in
 * `../shared/real-pages/` beside it: what each one shows, and how to open one in Chromium as
 * the site would serve it, with the page helpers in it and every other request refused. A
 * clone without the folder skips these tests with one line saying so (describeWithCaptures).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { describe } from 'vitest';
import { PAGE_HELPERS_SCRIPT } from '../../agents/providers/page-helpers.js';
import type { Helpers, TurnScope } from '../../agents/providers/page-helpers/types.js';
import type { PagePack } from '../../agents/providers/site.js';
import type { Provider } from '../../main/core/providers.js';
import { PROVIDER_SITES } from '../../agents/providers/index.js';
import { PagePool } from '../support/page-pool.js';

/** The repository's root: the nearest folder above this file with a package.json (it runs from test/, and from dist/test/ in a bench). */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * Where the captures are: `../shared/real-pages` from the repository's root, as the project
 * keeps no copy (NOTICE.md: licences); CHATBRIDGE_REAL_PAGES names another folder.
 */
export const REAL_PAGES = process.env.CHATBRIDGE_REAL_PAGES ?? resolve(repositoryRoot(), '../shared/real-pages');

/**
 * `describe` for tests that read the captures: a clone with nothing beside it has none, and
 * its `npm test` must pass, so there the block is skipped with one line saying why.
 */
export function describeWithCaptures(name: string, body: () => void): void {
  if (existsSync(REAL_PAGES)) {
    describe(name, body);
    return;
  }
  console.log(`skipped "${name}": no real captured pages at ${REAL_PAGES} (../shared/real-pages beside the clone; CHATBRIDGE_REAL_PAGES names another folder)`);
  describe.skip(name, body);
}

export interface Capture {
  provider: Provider;
  /** Its path under REAL_PAGES. */
  file: string;
  /** The page has the composer (some captures hold the thread column only). */
  composer: boolean;
  /** Captured logged out: the page shows a way to log in. */
  loggedOut: boolean;
  /** Captured while the last answer was still streaming. */
  streaming: boolean;
  /** Assistant turns on the page. */
  turns: number;
  /** The person's turns on the page. */
  userTurns: number;
  /** The simulator's layout (`--simulate-layout`) that reproduces this page's markup. */
  layout: string;
  /** A formula (KaTeX) alone in a paragraph of the last answer, as the answer's Markdown must give it. */
  formula?: string;
}

/** What the captures folder's NOTICE.md says each capture shows. A capture that is not listed here fails the suite until it is. */
export const CAPTURES: readonly Capture[] = [
  { provider: 'chatgpt', file: 'chatgpt/ai-rag-document-assistant-2026-05-21.html', composer: true, loggedOut: true, streaming: false, turns: 8, userTurns: 8, layout: 'section' },
  { provider: 'chatgpt', file: 'chatgpt/obsidian-ai-exporter-chat-simple-2026-02-27.html', composer: true, loggedOut: false, streaming: false, turns: 6, userTurns: 5, layout: 'article' },
  { provider: 'claude', file: 'claude/covai-ai-chat-exporter-2026-05-21.html', composer: true, loggedOut: false, streaming: false, turns: 1, userTurns: 1, layout: 'render-count' },
  { provider: 'claude', file: 'claude/ai-context-bridge-2026-04-29.html', composer: true, loggedOut: false, streaming: false, turns: 2, userTurns: 2, layout: 'render-count' },
  { provider: 'gemini', file: 'gemini/ai-context-bridge-2026-04-29.html', composer: true, loggedOut: false, streaming: false, turns: 1, userTurns: 1, layout: 'classic' },
  { provider: 'deepseek', file: 'deepseek/covai-ai-chat-exporter-2026-05-21.html', composer: true, loggedOut: false, streaming: false, turns: 1, userTurns: 1, layout: 'virtual-list', formula: '$x^{x\\xx} + 0 = 0$' },
  { provider: 'qwen', file: 'qwen/covai-ai-chat-exporter-2026-05-21.html', composer: true, loggedOut: false, streaming: false, turns: 1, userTurns: 1, layout: 'chat-panel', formula: '$x^{x\\xx} + 0 = 0$' },
  { provider: 'perplexity', file: 'perplexity/covai-ai-chat-exporter-2026-05-21.html', composer: false, loggedOut: false, streaming: false, turns: 1, userTurns: 1, layout: 'markdown-content' },
  { provider: 'perplexity', file: 'perplexity/ai-context-bridge-2026-04-29.html', composer: true, loggedOut: true, streaming: false, turns: 1, userTurns: 1, layout: 'markdown-content' },
];

/** The roles the flow acts on that a page shows without sending anything. */
export const SHOWN_ROLES = ['composer', 'assistantTurn', 'answer', 'finished', 'copy'] as const;

/**
 * Per role, the index of the first cue that finds it as the flow looks (the last turn; its
 * answer inside it; its finished signal and Copy in its scope), or -1. Runs in the page.
 */
export function findRoles([pack, scope]: [PagePack, TurnScope]): Record<(typeof SHOWN_ROLES)[number], number> {
  const h = window.__chatbridge as Helpers;
  const last = h.turns(pack).at(-1) ?? null;
  const root = last && h.scopeOf(pack, last, scope);
  const inTurn = (role: 'answer' | 'finished' | 'copy') =>
    last && root ? (pack[role] ?? []).findIndex((cue) => (role === 'answer' ? h.find([cue], last) : h.inScope(last, [cue], root)) !== null) : -1;
  return {
    composer: h.which(pack.composer),
    assistantTurn: h.which(pack.assistantTurn),
    answer: inTurn('answer'),
    finished: inTurn('finished'),
    copy: inTurn('copy'),
  };
}

/** Every page in the captures folder, as `<provider>/<file>`. */
export function captureFiles(): string[] {
  if (!existsSync(REAL_PAGES)) throw new Error(`No real captured pages at ${REAL_PAGES} (set CHATBRIDGE_REAL_PAGES to the folder).`);
  return readdirSync(REAL_PAGES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(join(REAL_PAGES, d.name)).filter((f) => f.endsWith('.html')).map((f) => `${d.name}/${f}`))
    .sort();
}

/**
 * A page showing `capture` at its site's address, the page helpers installed as the agents'
 * browser installs them. Every request but the page's own is refused: no script, no style
 * (so elements the site's CSS would hide count as shown), nothing leaves the machine.
 */
export async function openCapture(browser: Browser, capture: Capture): Promise<{ page: Page; close(): Promise<void> }> {
  const html = readFileSync(join(REAL_PAGES, capture.file), 'utf8');
  const url = new URL(PROVIDER_SITES[capture.provider].newChatPath, PROVIDER_SITES[capture.provider].baseUrl).href;
  const tab = await pages.take(browser, 'capture', () => newCapturePage(browser));
  tab.serving = { url, html };
  await tab.page.goto(url);
  // The next capture of the site shares this one's origin: giving the page back clears what its scripts stored.
  return { page: tab.page, close: () => pages.giveBack(browser, 'capture', tab) };
}

/** A page that serves the capture it is given at its address, and nothing else. */
interface CapturePage {
  page: Page;
  serving: { url: string; html: string };
}

/** Capture pages of tests that ended. */
const pages = new PagePool<CapturePage>();

async function newCapturePage(browser: Browser): Promise<CapturePage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(PAGE_HELPERS_SCRIPT);
  const tab: CapturePage = { page: await context.newPage(), serving: { url: '', html: '' } };
  await context.route('**/*', (route) =>
    route.request().url() === tab.serving.url ? route.fulfill({ body: tab.serving.html, contentType: 'text/html; charset=utf-8' }) : route.abort('blockedbyclient'),
  );
  return tab;
}

/**
 * In the page: the capture as a release that renamed its test hooks and rebuilt its styles
 * at once would serve it (the simulator's drift kinds `testids` and `classes` together,
 * agents/simulator/client/drift.ts): every test id renamed, every class and id hashed, and
 * every reference to an id (labels, `<use href="#…">` icons) with them. Self-contained: it
 * runs in the page.
 */
export function rebuildPage(): void {
  // FNV-1a, as the simulator's build hash (drift-names.ts): the same name, the same hash.
  const hash = (name: string) => {
    let h = 0x811c9dc5;
    for (const char of name) h = Math.imul(h ^ char.codePointAt(0)!, 0x01000193) >>> 0;
    return `_${h.toString(36).padStart(7, '0')}`;
  };
  const hashAll = (names: string) => names.split(/\s+/).filter(Boolean).map(hash).join(' ');
  const tests = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];
  const references = ['for', 'aria-labelledby', 'aria-describedby', 'aria-controls', 'aria-owns', 'aria-activedescendant'];
  for (const el of Array.from(document.querySelectorAll('*'))) {
    for (const attr of tests) {
      const value = el.getAttribute(attr);
      if (value !== null) el.setAttribute(attr, `qa${hash(value)}`);
    }
    const classes = el.getAttribute('class');
    // A code block's language is the Markdown renderer's, not the build's: it survives.
    if (classes !== null) el.setAttribute('class', classes.split(/\s+/).filter(Boolean).map((c) => (/^(?:language|lang)-/.test(c) ? c : hash(c))).join(' '));
    const id = el.getAttribute('id');
    if (id) el.setAttribute('id', hash(id));
    for (const attr of references) {
      const ids = el.getAttribute(attr);
      if (ids) el.setAttribute(attr, hashAll(ids));
    }
    for (const attr of ['href', 'xlink:href']) {
      const ref = el.getAttribute(attr);
      if (ref && /^#./.test(ref)) el.setAttribute(attr, `#${hash(ref.slice(1))}`);
    }
  }
}
