/**
 * What a simulated provider site looks like. The engine (app.ts) does the behaviour that
 * all six share; a skin builds the DOM of one provider, following that provider's real DOM
 * contract closely enough that ChatBridge's real selector pack drives it unchanged.
 */
import type { DriftKind } from './drift-kinds.js';
import type { AccountNoticeKind } from './account-notices.js';
import type { MarkdownLook } from './markdown.js';
import type { VariantBoot } from './variant-picker.js';

export type ComposerMode = 'empty' | 'ready' | 'generating' | 'paused';

export interface Composer {
  element: HTMLElement;
  read(): string;
  clear(): void;
}

export interface AssistantTurn {
  /** Shows the (partial) answer as HTML while it streams. */
  render(html: string): void;
  /** The provider's finished-turn signal and actions; the copy control copies `markdown`. */
  finish(markdown: string): void;
  error(): void;
  refuse(text: string): void;
  stopped(): void;
}

export interface SkinUi {
  composer: Composer;
  sendButton: HTMLElement;
  stopButton: HTMLElement;
  setMode(mode: ComposerMode): void;
  addUserTurn(text: string): void;
  addAssistantTurn(): AssistantTurn;
  showLoginWall(): void;
  showLimitBanner(text: string): void;
  /**
   * File controls the skin draws itself, handed to its attach look (attach/*.ts), which draws
   * the rest: found here, as built, they need no lookup on a page the drift has rewritten.
   */
  fileSlots?: FileSlots;
}

export interface FileSlots {
  input?: HTMLInputElement;
  /** The button that opens the input (or its menu). */
  button?: HTMLElement;
  /** The send control as the page shows it, where `sendButton` stands in for it. */
  send?: HTMLElement;
  /** Where the attach trigger and the input go (Qwen's mode select). */
  modeSelect?: HTMLElement;
  dropZone?: HTMLElement;
}

/** A provider's page; `MarkdownLook`: how it renders what answers hold (code blocks, links) its own way. */
export interface Skin extends MarkdownLook {
  mount(root: HTMLElement): SkinUi;
  /** Its file controls: input, chips, refusal notice, drop zone (attachments.ts, attach/*.ts). */
  attach: AttachLook;
}

/** What the site server embeds in each page. */
export interface Boot {
  provider: string;
  name: string;
  conversationId: string | null;
  history: { prompt: string; markdown: string }[];
  /**
   * The last turn, when the site is still writing its answer as the page opens (the
   * conversation reopened mid-answer): the page shows it going on, in what remains of its time.
   */
  answering: { prompt: string; plan: Plan } | null;
  /** The account's chats, newest first, with the titles the site gave them (chat-titles.ts). */
  chats: { id: string; title: string }[];
  paths: { newChat: string; conversation: string; transient?: string };
  /** Which of the provider's layouts the skin shows (SimSiteConfig.layouts). */
  layout: string;
  /** How the page drifts from its usual markup (drift-kinds.ts). */
  drift: DriftKind[];
  /** False on the anonymous page of a site that works logged out (SimSiteConfig.anonymous). */
  signedIn: boolean;
  /** Set when the account is at its usage limit as the page opens: the page shows the notice at once. */
  limitResetAt: number | null;
  /** An account notice the page shows as it opens (the rate-limit modal, a lock): account-notices.ts. */
  notice: AccountNoticeKind | null;
  /** A cookie-consent banner covers the page until answered (consent-banner.ts). */
  consent: boolean;
  /** A plan's upsell over the page, in the words of a limit it does not say the account hit (upsell-banner.ts). */
  upsell: boolean;
  /** A paste at least this long becomes a file attachment (pasted-file.ts); null: never. */
  pasteToFileAt: number | null;
  /** The first answer's address is the provisional `paths.transient` until the answer is done. */
  provisionalUntilDone: boolean;
  /** The model picker and mode toggles: what the account is given and what is in force (variant-picker.ts). */
  variants: VariantBoot;
}

/** The server's answer to a send: what the page plays (see app.ts). */
export interface Plan {
  kind: 'answer' | 'refuse' | 'error' | 'limit' | 'logout' | 'challenge' | AccountNoticeKind;
  conversationId: string | null;
  turn: number;
  markdown: string;
  ms: number;
  thinkMs: number;
  /** The interim paragraph's time on screen before the answer streams (answer.ts). */
  interimMs: number;
  hang: boolean;
  limitResetAt: number | null;
  /** An `error` whose page shows it as a line of the answer and leaves the stop control up. */
  stuck?: true;
  /** An `answer` that is a generated file: its name, shown as a file card with no text. */
  file?: string;
  /** A long-thinking mode: "Thinking…" with the stop control up, and no answer, for this long first. */
  thinkFirstMs?: number;
  /** An `answer` whose wrapper ends empty, its copy giving nothing, until the page is loaded again (answer.ts). */
  hydrateEmpty?: true;
  /** The title of the answer's conversation (chat-titles.ts). */
  title?: string;
}

/** One file's chip, as a site draws it. */
export interface FileChip {
  /** The chip (the engine marks it busy while it uploads). */
  element: HTMLElement;
  /** Its remove control: while uploading it cancels the upload. */
  remove: HTMLElement;
  /** The upload finished (Perplexity's cancel turns into remove). */
  finished?(): void;
}

/** A site's file controls, built into its mounted page. */
export interface AttachControls {
  /** Where the chips go, in the order the files came. */
  chips: HTMLElement;
  /** A chip for a file of this name and size, its position among the chips (1-based). */
  chip(name: string, bytes: number, position: number): FileChip;
  /** The site's refusal notice, with the server's words. */
  notice(text: string): void;
  /** Where dropping files attaches them. */
  dropZone: HTMLElement;
  /** Shows Send disabled while an upload runs and the mode is 'ready' (false: gives back what blocking changed; called right after the skin's setMode). */
  blockSend(blocked: boolean): void;
  /** Chips changed (DeepSeek shows its hint only under cards). */
  changed?(count: number): void;
  /** A send took the files (Claude's composer is now a conversation's). */
  sent?(): void;
}

export interface AttachLook {
  /** Builds the site's file controls into the page; `attach` takes the files chosen in them. */
  mount(ui: SkinUi, attach: (files: Iterable<File>) => void): AttachControls;
}
