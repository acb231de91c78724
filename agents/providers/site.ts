import type { Provider } from '../../main/core/providers.js';

/**
 * The roles a selector pack names. Each role is an ordered list of fallbacks: the first
 * that matches a visible element wins. An entry is a CSS selector; `text=/regex/flags` for
 * "an element whose own text matches"; or `CSS |text=/regex/flags` for an element matching
 * CSS whose text matches (for banners and notices without a stable attribute).
 */
export type Role =
  | 'composer' // where the prompt goes
  | 'send' // the send button (only present/enabled once the composer has text on most sites)
  | 'stop' // the stop control while generating
  | 'assistantTurn' // one element per assistant answer; the last one is the newest
  | 'answer' // inside a turn: the element holding the rendered answer
  | 'finished' // inside a turn (or matching the turn itself): the provider's own "turn finished" signal
  | 'copy' // inside a turn: the copy-as-Markdown control
  | 'loginWall'
  | 'limitBanner'
  | 'errorCard' // inside a turn, or page-wide
  | 'refusal' // inside a turn
  | 'challenge'; // captcha / bot-check page

export type SelectorPack = Record<Role, readonly string[]>;

/**
 * Everything ChatBridge knows about one provider's web app: data, so that a change on the
 * site is a one-line fix here. `baseUrl` is the only thing the simulator replaces.
 */
export interface ProviderSite {
  provider: Provider;
  /** Human name, as the provider writes it. */
  name: string;
  baseUrl: string;
  /** Path of a fresh chat. */
  newChatPath: string;
  /** A persisted conversation's path; transient ids must not match. */
  conversationPath: RegExp;
  /** Addresses (full URLs) that mean "you are logged out": the site's login pages, or its identity provider's. */
  loginUrl: RegExp;
  /** Where a person logs in (the pairing window opens it). */
  loginUrlPath: string;
  /**
   * How the prompt gets into the composer: `fill` for plain textareas; `paste` for rich
   * editors (ProseMirror, Quill, Lexical), which ignore value assignment and would send
   * early on a typed newline.
   */
  input: 'fill' | 'paste';
  /** Scope for turn-level roles when they sit next to the turn rather than inside it. */
  turnScope?: string;
  selectors: SelectorPack;
  /** How the limit banner says when it lifts; returns epoch ms, or null if it does not say. */
  parseLimitReset?: (bannerText: string, now: Date) => number | null;
}
