/**
 * ChatGPT's page, in the layout the site server chose (SimSiteConfig.layouts): the three
 * generations live in 2026 (research/providers-live-2026.md, "ChatGPT") — `app-shell`
 * (the freshest, the default), `section` (since 2026-03), `article` (legacy) — and the
 * app-shell in Russian, as the live accounts the research quotes show it.
 */
import { startApp } from '../app.js';
import { chatgptAttach } from '../attach/chatgpt.js';
import { el } from '../dom.js';
import type { Skin, SkinUi } from '../skin.js';
import { mountAppShell } from './chatgpt-app-shell.js';
import { mountArticle } from './chatgpt-article.js';
import { CHATGPT_STYLE, codeMirrorBlock, promptWatcher } from './chatgpt-parts.js';
import { mountSection } from './chatgpt-section.js';
import { CHATGPT_WORDS } from './chatgpt-words.js';

const boot = window.__SIM_BOOT;
const prompts = promptWatcher(boot.history.length);

const LAYOUTS: Record<string, Omit<Skin, 'attach'>> = {
  'app-shell': { mount: (root) => mountAppShell(root, prompts, CHATGPT_WORDS.en), renderCode: codeMirrorBlock(CHATGPT_WORDS.en) },
  'app-shell-ru': { mount: (root) => mountAppShell(root, prompts, CHATGPT_WORDS.ru), renderCode: codeMirrorBlock(CHATGPT_WORDS.ru) },
  section: { mount: (root) => mountSection(root, prompts), renderCode: codeMirrorBlock(CHATGPT_WORDS.en) },
  article: { mount: (root) => mountArticle(root, prompts) },
};

const layout = LAYOUTS[boot.layout];
if (!layout) throw new Error(`The ChatGPT skin has no layout "${boot.layout}".`);

startApp({
  ...layout,
  attach: chatgptAttach,
  // No captured answer holds a link (the captures' links are citation pills): one that opens elsewhere.
  linkAttributes: { target: '_blank', rel: 'noopener' },
  mount(root): SkinUi {
    document.head.append(el('style', {}, CHATGPT_STYLE));
    return layout.mount(root);
  },
});
