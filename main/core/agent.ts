import type { AttachmentFile } from './attachments.js';
import type { Provider } from './providers.js';

/**
 * The boundary between the queue and whatever drives a provider account. Agents know
 * nothing of HTTP or of jobs: they get a prompt, an optional conversation to continue and
 * an abort signal, and return the answer or throw an AgentFailure. The scheduler turns
 * failures into retries, cooldowns and final codes.
 */
export interface AgentTask {
  prompt: string;
  /** The provider's own conversation address to continue, or null for a new chat. */
  conversation: string | null;
  /** Aborted on cancel, per-attempt timeout, deadline or shutdown; `signal.reason` says which. */
  signal: AbortSignal;
  /** Names this run in what the agent keeps about a failure (its diagnostic bundle): the job id and attempt. */
  label: string;
  /**
   * The variant (a model or mode of the provider's own picker, by its id in the pack) to
   * select and verify before typing; null leaves the picker as it stands (the account's
   * default, or the model of the conversation continued).
   */
  variant: string | null;
  /**
   * The job's files, in order, to put through the page's own file control and see shown
   * attached (upload finished) before the prompt is typed; empty for none. A file the page
   * refuses or does not show in time fails the attempt `attachment_failed`, nothing sent.
   */
  attachments?: readonly AttachmentFile[];
  /**
   * Hears of the prompt as it goes to the page, and again once the page shows the
   * conversation's own address: where `Agent.collect` finds the answer should the attempt
   * end before it (a long-thinking variant's). Resolves once what it heard is kept. The agent
   * presses Send only once the first has resolved: a service killed at any moment after the
   * press then knows the prompt may have gone, and never sends it again blindly. A first that
   * rejects was not kept, and the agent sends nothing.
   */
  onSent?(sent: SentPrompt): Promise<void>;
  /**
   * Publishes a piece of the answer the agent is sure of, as the page renders it: the next
   * characters of the final answer, read as the final answer is read (a part the page has
   * finished rendering), never a guess to take back. The pieces told, joined, must be a
   * prefix of the `text` the run returns; whatever of `text` they do not cover is published
   * for the agent when the job succeeds. Event streams and chat streaming carry them.
   */
  onDelta?(text: string): void;
}

/**
 * Where a sent prompt's answer can be found again without sending the prompt: the
 * conversation's own address (null until the page shows it), and how many assistant turns
 * the page showed before the send (the answer is the one after them).
 */
export interface SentPrompt {
  conversation: string | null;
  turnsBefore: number;
}

/** Collecting the answer to a prompt sent earlier: the conversation reopened, nothing sent. */
export interface CollectTask {
  /** The prompt that was sent: never sent again, and kept out of what the agent keeps of a failure. */
  prompt: string;
  sent: SentPrompt & { conversation: string };
  /** Aborted when the collection's time is up (`signal.reason` 'timed_out'), or on cancel, deadline or shutdown. */
  signal: AbortSignal;
  label: string;
}

/**
 * Why an attempt's signal aborts when its time ran out on an answer that is to be collected
 * by reopening its conversation (a long-thinking variant's): the page is left answering, its
 * Stop not pressed, so the answer can still finish.
 */
export const CUT_TO_COLLECT = 'cut_to_collect';

export interface AgentResult {
  /** The answer as the provider wrote it (Markdown). */
  text: string;
  /** The provider's address of the conversation after the turn. */
  conversation: string;
  /** The model the page says answered (ChatGPT's per-message model slug), or null where the page does not say. */
  modelUsed: string | null;
  /** How the end of the answer was decided (the site's finished signal, or which evidence), for the attempt's record. */
  finish?: string;
}

/** What the agent itself knows about its readiness; `busy` and `paused` are the scheduler's. */
export type AgentReadiness = 'idle' | 'needs_login' | 'error';

/**
 * The states decisions.md lists, as reported to users, plus `resting`: logged in but cooling
 * down after the provider's usage limit, so not eligible (and not idle) until its time.
 */
export type AgentState = 'needs_login' | 'idle' | 'busy' | 'resting' | 'paused' | 'error';

export type AgentFailureKind =
  | 'rejected' // the provider refused the prompt: never retried
  | 'provider_error' // an error card: retried
  | 'rate_limited' // a usage-limit banner: the agent cools down, the job waits or moves
  | 'logged_out' // a login wall: the agent needs the user
  | 'challenge' // a captcha or similar: the agent needs the user
  | 'timed_out'
  | 'agent_lost' // the page or browser died
  | 'site_changed' // a control the agent needs could not be found by any cue: the site changed
  | 'not_text' // the answer is a file, an image or a canvas: final, since sending again makes another
  | 'attachment_failed' // the page refused a file or did not show it attached in time: nothing was sent
  | 'variant_unavailable'; // the account's picker does not offer the variant, or the choice could not be verified: nothing was sent

export class AgentFailure extends Error {
  constructor(
    readonly kind: AgentFailureKind,
    message: string,
    /** For `rate_limited`: when the provider says the limit lifts. */
    readonly retryAt?: number,
  ) {
    super(message);
    this.name = 'AgentFailure';
  }
}

/**
 * The provider says the account itself is in question ("Suspicious activity detected", a
 * lock): a challenge only a person can answer. The agent sends nothing more until a person
 * has looked (a check they ask for finds the page free of it); no look of its own clears it.
 */
export class AccountLocked extends AgentFailure {
  constructor(message: string) {
    super('challenge', message);
    this.name = 'AccountLocked';
  }
}

/**
 * The account does not offer the requested variant (a free plan, a region), the picker's
 * words are no longer recognised, or the page does not show the choice taken: the prompt was
 * not typed. Another agent of the provider may offer it.
 */
export class VariantUnavailable extends AgentFailure {
  constructor(
    readonly variant: string,
    /**
     * The ids of the pack's variants the page offered when the choice failed; null when it
     * showed none to read (no picker found, or its menu did not open): what the account offers
     * is not known.
     */
    readonly offered: string[] | null,
    message: string,
  ) {
    super('variant_unavailable', message);
    this.name = 'VariantUnavailable';
  }
}

/** How an agent's state detail begins when a changed site set it aside: the runtime writes it, the queue reads it. */
export const SITE_CHANGED_DETAIL = 'site changed: ';

/** Something an agent did or saw that a person may want to know (a dialog it closed), for the service's log. */
export interface AgentNote {
  level: 'info' | 'warn';
  message: string;
}

export interface Agent {
  readonly id: string;
  readonly provider: Provider;
  /** Current readiness; the agent calls the listener given to `onChange` when it changes. */
  readiness(): AgentReadiness;
  /** Why the agent is not ready, in words for a person (optional). */
  detail?(): string;
  /**
   * Looks at its page again and updates readiness (after a person logged in, or to see
   * whether it still is). Optional: agents without a page have nothing to look at.
   */
  recheck?(): Promise<unknown>;
  /**
   * True while only a person can make the agent ready again (its account is locked): then no
   * look of the agent's own is planned, as for a login.
   */
  awaitsPerson?(): boolean;
  onChange(listener: () => void): void;
  /** Notes for the log, if the agent has any to give. */
  onNote?(listener: (note: AgentNote) => void): void;
  /** Runs one prompt. Never called while a previous run is unsettled. */
  run(task: AgentTask): Promise<AgentResult>;
  /**
   * Reopens the conversation of a prompt sent earlier and returns its answer once the page
   * shows it finished, sending nothing; throws an AgentFailure when it shows none. Called as
   * `run` is (never while a run is unsettled). Optional: an agent without pages cannot.
   */
  collect?(task: CollectTask): Promise<AgentResult>;
  close(): Promise<void>;
}
