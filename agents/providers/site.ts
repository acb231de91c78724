import type { Provider } from '../../main/core/providers.js';
import type { Cue, PageCue } from './cues.js';
import type { Matcher } from './user-patterns.js';
import type { AttachCueKey, SiteAttachments } from './attachment-pack.js';
import type { SiteVariants } from './variant-pack.js';

/**
 * The roles a selector pack names (packs/<provider>.json). Each role is an ordered list of
 * cues: the first cue that finds a visible element wins.
 */
export const ROLES = [
  'composer', // where the prompt goes
  'send', // the send button (only present/enabled once the composer has text on most sites)
  'stop', // the stop control while generating
  'assistantTurn', // one element per assistant answer
  'answer', // inside a turn: the element holding the rendered answer
  'finished', // inside a turn (or matching the turn itself): the provider's own "turn finished" signal
  'copy', // inside a turn: the copy-as-Markdown control
  'loginWall',
  'limitBanner',
  'errorCard', // inside a turn, or page-wide
  'refusal', // inside a turn
  'challenge', // captcha / bot-check page
  // The conversation, where no notice of the site is ever read (an answer or a prompt may say "Account locked"):
  'userTurn', // one element per message the person sent
  'chatTitle', // where the site shows a chat's title, made from its prompt: the links to chats in its history, a header's title
  // Blockers the flow clears before acting (optional in a pack):
  'preferFirst', // an A/B "which response do you prefer" chooser: the control that keeps the first answer
  'chatMode', // a Chat/Work toggle: the control that selects Chat (clicked only when not already selected)
  'dialogClose', // the site's own controls that dismiss its promo dialogs, beyond the generic ones
  // What only a person may act on, and what the flow answers for the person (optional in a pack):
  'accountLock', // the site says the account is locked or suspected ("Suspicious activity detected"): nothing more is sent from it
  'consent', // a cookie or consent banner's least permissive choice ("Reject non-essential"), clicked once
  'attachment', // a file the composer made of the prompt (ChatGPT's "Pasted markdown"): never sent in the prompt's place
  'accountPicker', // on a page without a composer, the saved account's card of a "Choose an account to continue" page: clicked once
  'interim', // inside a turn: words a site posts before its answer (Perplexity's "I'll research … first"): never taken as the answer
] as const;

export type Role = (typeof ROLES)[number];

/** The roles the flow acts on: each is found by cues of at least three kinds, one of which survives renamed test ids and hashed classes together (test/unit/pack-cue-rules.test.ts). */
export const ACTING_ROLES = ['composer', 'send', 'stop', 'assistantTurn', 'answer', 'finished', 'copy'] as const satisfies readonly Role[];

/** The roles every pack names; the blockers' are optional. */
const OPTIONAL_ROLES: readonly Role[] = ['preferFirst', 'chatMode', 'dialogClose', 'accountLock', 'consent', 'attachment', 'accountPicker', 'interim'];
export const REQUIRED_ROLES = ROLES.filter((r) => !OPTIONAL_ROLES.includes(r));

/**
 * The roles' cues as the page helpers take them, the page's "thinking" signal (a pack's
 * `variants.thinking`), if it has one, and the cues of its `attachments` (attachment-pack.ts).
 */
export type PagePack = Partial<Record<Role | 'thinking' | AttachCueKey, readonly PageCue[]>>;

/**
 * A pack as the flow sends it to the page: its JSON, one string, which the page helpers
 * parse once per document (`pack`). Playwright serialises an object argument value by value
 * and checks each against its protocol: a pack, 5 to 11 KB of nested cues, cost ~4.5 ms of
 * CPU per call that way against ~1.4 ms as one string, and a job makes some 20 such calls.
 */
export type PagePackJson = string & { readonly __pagePackJson: true };

const packJsons = new WeakMap<PagePack, PagePackJson>();

/** `pack` as the page takes it (made once per pack). */
export function packJson(pack: PagePack): PagePackJson {
  let json = packJsons.get(pack);
  if (json === undefined) {
    json = JSON.stringify(pack) as PagePackJson;
    packJsons.set(pack, json);
  }
  return json;
}

/** The address of a fresh chat on the site. */
export function newChatUrl(site: ProviderSite): string {
  return new URL(site.newChatPath, site.baseUrl).href;
}

/** How a limit notice says when the limit lifts (limit-reset.ts). */
export type LimitReset = 'clock' | 'claude' | 'none';

/**
 * Everything ChatBridge knows about one provider's web app: data (packs/<provider>.json,
 * perhaps with a user's override merged over it), so that a change on the site is a fix
 * in data. `baseUrl` is what the simulator replaces.
 */
export interface ProviderSite {
  provider: Provider;
  /** Human name, as the provider writes it. */
  name: string;
  /** The pack's version and the day its cues were last held against the live site. */
  version: number;
  checked: string;
  /** Set when a user's override (`<data dir>/sites/<provider>.json`) is merged in: its path. */
  override: string | null;
  baseUrl: string;
  /** Path of a fresh chat. */
  newChatPath: string;
  /** A persisted conversation's path; transient ids must not match. */
  conversationPath: Matcher;
  /** Addresses (full URLs) that mean "you are logged out": the site's login pages, or its identity provider's. */
  loginUrl: Matcher;
  /** Where a person logs in (the pairing window opens it). */
  loginUrlPath: string;
  /**
   * How the prompt gets into the composer: `fill` for plain textareas; `paste` for rich
   * editors (ProseMirror, Quill, Lexical), which ignore value assignment and would send
   * early on a typed newline.
   */
  input: 'fill' | 'paste';
  /**
   * Where turn-level roles are looked for when they sit next to the turn rather than inside
   * it: selectors tried in order, the first matching an ancestor that holds no other turn
   * wins (page-helpers/types.ts, TurnScope); empty: the turn itself.
   */
  turnScope: readonly string[];
  roles: Partial<Record<Role, readonly Cue[]>>;
  /** The same roles for the page helpers. */
  page: PagePack;
  limitReset: LimitReset;
  /** The models and modes its picker and toggles offer (variant-pack.ts). */
  variants: SiteVariants;
  /** What its site takes as files and how they are put in (attachment-pack.ts); null: the pack says nothing of files. */
  attachments: SiteAttachments | null;
}
