import { randomBytes, randomUUID } from 'node:crypto';
import type { Provider } from '../../main/core/providers.js';

/** How one simulated site is laid out: the real provider's URL patterns and its skin. */
export interface SimSiteConfig {
  provider: Provider;
  name: string;
  title: string;
  paths: {
    newChat: string;
    /** `{id}` is replaced by the conversation id. */
    conversation: string;
    /** A conversation inside a project (ChatGPT's `/g/{project}/c/{id}`), beside `conversation`. */
    project?: string;
    /** A first, transient address some sites show before the real one (ChatGPT's `/c/WEB:…`). */
    transient?: string;
    login: string;
  };
  newId: () => string;
  /** The skin's entry module under the client folder. */
  skin: string;
  /**
   * The page layouts the skin can show (research/providers-live-2026.md: the generations
   * of the real site that are live at once); the first is the default, the one most users
   * see now.
   */
  layouts: readonly [string, ...string[]];
  /**
   * The site works logged out (Gemini's anonymous composer): without a session its chat
   * page is served anyway, with a sign-in control and no account, and it answers without
   * keeping the conversation. Other sites send a logged-out visitor to their login page.
   */
  anonymous?: true;
}

export const SIM_SITES: Record<Provider, SimSiteConfig> = {
  chatgpt: {
    provider: 'chatgpt',
    name: 'ChatGPT',
    title: 'ChatGPT',
    paths: { newChat: '/', conversation: '/c/{id}', project: '/g/{project}/c/{id}', transient: '/c/WEB:{id}', login: '/auth/login' },
    newId: randomUUID,
    skin: 'skins/chatgpt.js',
    // The app-shell build is what every live observation from 2026-09-24 on shows
    // (research/providers-live-2026.md C1, C2, C4, C7, C8; English and Russian accounts);
    // `section` turns are the 2026-03..06 evidence, `article` the legacy renderer.
    layouts: ['app-shell', 'section', 'article', 'app-shell-ru'],
  },
  claude: {
    provider: 'claude',
    name: 'Claude',
    title: 'Claude',
    paths: { newChat: '/new', conversation: '/chat/{id}', login: '/login' },
    newId: randomUUID,
    skin: 'skins/claude.js',
    // `transcript`: the 2026-09-02 snapshot and the 2026 adapters agree on it (the freshest);
    // `rs-rows`: a 2026-07-16 live dump with `[data-rs-index]` rows; `render-count`: the real
    // pages of 2026-04/-05, no row wrappers, the action bar beside the reply (skins/claude.ts).
    layouts: ['transcript', 'rs-rows', 'render-count'],
  },
  gemini: {
    provider: 'gemini',
    name: 'Gemini',
    title: 'Gemini',
    paths: { newChat: '/app', conversation: '/app/{id}', login: '/signin' },
    newId: () => randomBytes(8).toString('hex'),
    skin: 'skins/gemini.js',
    // `classic`: the editor takes a paste's data (what the pack was proven on); `quill-clipboard`:
    // stock Quill 1, which ignores it (skins/gemini.ts). Which one the live site runs is unverified.
    layouts: ['classic', 'quill-clipboard'],
    anonymous: true,
  },
  deepseek: {
    provider: 'deepseek',
    name: 'DeepSeek',
    title: 'DeepSeek - Into the Unknown',
    paths: { newChat: '/', conversation: '/a/chat/s/{id}', login: '/sign_in' },
    newId: randomUUID,
    skin: 'skins/deepseek.js',
    // `virtual-list`: keyed rows with `.ds-message`, what the 2026-10 adapters read; the
    // unkeyed, hashed-class variant was rolling out on 2026-10-04; `classic` is the
    // pre-virtual-list page (skins/deepseek.ts).
    layouts: ['virtual-list', 'virtual-list-hashed', 'classic'],
  },
  qwen: {
    provider: 'qwen',
    name: 'Qwen',
    title: 'Qwen Chat',
    paths: { newChat: '/', conversation: '/c/{id}', login: '/auth' },
    newId: randomUUID,
    skin: 'skins/qwen.js',
    // `single` is what most accounts see in 2026: one answer per prompt, code blocks in a
    // Monaco editor. `dual` is Qwen's A/B experiment, two answers and "I prefer this
    // response" (research/providers-live-2026.md, Qwen), which some accounts get often.
    // `chat-panel` is the real page of 2026-05-21 (real-pages/qwen): deeper markup, the
    // answer's actions without roles or labels.
    layouts: ['single', 'dual', 'chat-panel'],
  },
  perplexity: {
    provider: 'perplexity',
    name: 'Perplexity',
    title: 'Perplexity',
    // The thread settles from /search/new/… to its final slug once answered.
    paths: { newChat: '/', conversation: '/search/{id}', transient: '/search/new/{id}', login: '/account/signin' },
    newId: () => `answer-${randomBytes(6).toString('hex')}`,
    skin: 'skins/perplexity.js',
    // `final-text`: the 2026-10 renderer, the answer wrapped in `[data-workflow-final-text]`
    // only once it has streamed. `markdown-content`: the earlier renderer that open threads
    // and A/B variants still serve, answers anchored by `div[id^=markdown-content-]`
    // (research/providers-live-2026.md, Perplexity).
    layouts: ['final-text', 'markdown-content'],
  },
};
