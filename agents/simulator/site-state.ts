/**
 * What a simulated site keeps from one run of `serve --simulate` to the next, as a real site
 * keeps it on its servers while ChatBridge restarts: its address (the conversations'
 * addresses name its port), the sessions it gave (the agents' browsers keep their cookies),
 * the conversations with the answers still being written, the limits and locks it set and
 * the failures it played (a prompt that hit a limit does not hit it again), and its log. So an answer a stop left answering can be collected from its conversation after the
 * restart, and the log shows every send across runs. Read at the start, written at the close.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { SentFile, UploadRecord } from './uploads.js';

/** What a simulated site saw, with times (epoch ms) for the benchmarks. */
export interface SimLog {
  /** `anonymous`: sent from a page without a session, on a site that works logged out. */
  /** `variant`: the picker's model and the toggles on, as the page sent it. `files`: the uploaded files the send carried, in order. */
  sends: { conversationId: string | null; prompt: string; kind: string; turn: number | null; at: number; anonymous?: true; attachment?: string; files?: SentFile[]; variant?: InForce }[];
  /** Every file the page uploaded (or tried to), apart from the sends: what became of each is its `state` (uploads.ts). */
  uploads: UploadRecord[];
  /** Each Stop press the page reported, and when it arrived. */
  stops: { conversationId: string; turn: number; at: number }[];
  /** When the page showed each answer finished. */
  finishes: { conversationId: string; turn: number; at: number }[];
  logins: number;
  /** Which answer of an A/B pair the page was told to keep (1 or 2), per conversation. */
  prefers: { conversationId: string; choice: number }[];
  /** Account notices (rate-limit modal, lock) someone closed, and with what. */
  dismissals: { kind: string; button: string; at: number }[];
  /** How the consent banner was answered. */
  consents: ('accept' | 'reject')[];
  /** Clicks on the saved account of the account picker. */
  picks: number;
  /** Choices made in the model picker or on a mode toggle. */
  variantPicks: number;
  /** Clicks the model picker ignored, not yet listening (SimVariants.inertMs). */
  ignoredPickerClicks: number;
}

/** The picker's model (null: the provider has none) and the mode toggles on. */
export interface InForce {
  model: string | null;
  modes: string[];
}

export interface Turn {
  prompt: string;
  markdown: string;
  /**
   * When the site has the answer whole (epoch ms, its time on the page from the send on; a
   * Stop ends it then): a page opened before then shows it still being written. Null: never
   * (`[[sim:hang]]`).
   */
  doneAt: number | null;
}

export interface Conversation {
  /** What the site titles it, from its first prompt (answer.ts, chatTitle). */
  title: string;
  turns: Turn[];
  /** The model and modes of its last turn: a conversation opened again shows them in force. */
  variant?: InForce;
}

export interface SiteState {
  port: number;
  sessions: string[];
  conversations: [string, Conversation][];
  /** Sessions under a usage limit, until when (epoch ms). */
  limitedUntil: [string, number][];
  /** The account failures already played, per prompt: a prompt that hit a limit once does not again. */
  seen: string[];
  /** Sessions behind the rate-limit modal, until when; sessions locked until their person secures the account. */
  rateLimitedUntil: [string, number][];
  locked: string[];
  /** What each session last sent under. */
  lastVariant: [string, InForce][];
  log: SimLog;
}

/** The state a site left in `file`; null for a site never run there (or a file that does not read). */
export function readSiteState(file: string): SiteState | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SiteState;
  } catch {
    return null;
  }
}

/** Writes the state whole or not at all: a new file renamed over the old one. */
export function writeSiteState(file: string, state: SiteState): void {
  writeFileSync(`${file}.new`, JSON.stringify(state), { mode: 0o600 });
  renameSync(`${file}.new`, file);
}
