/** What the page helpers answer and take: the shapes the flow and the in-page modules share. */
import type { PagePack, PagePackJson, Role } from '../site.js';
import type { PageCue, PagePattern } from '../cues.js';
import type { ModelReading } from '../variant-pack.js';

/**
 * Something other than an answer: what the page showed, and its text. `accountLock`: the site
 * says the account itself is in question. `confirm`: a login wall or a lock seen in no dialog
 * that blocks the page: beside a conversation, it counts only once a fresh page of the site
 * shows one too (fresh-page.ts), as a chat's title or a page's own words may look like one.
 */
export type TurnProblem = { kind: 'errorCard' | 'refusal' | 'limitBanner' | 'loginWall' | 'challenge' | 'accountLock'; text: string; confirm?: true };
/** Whether an element a cue found is taken after all (the cue's CSS, text and name all matched). */
export type Accept = (el: Element, cue: PageCue) => boolean;

/** What belongs to the conversation on the page, for one look at it (conversation.ts). */
export interface Conversation {
  /** Whether the element is part of it: in a turn (the assistant's or the person's), a chat's title. */
  holds(el: Element): boolean;
  /** The element's words that are not the conversation's: what a notice says in its own words. */
  wordsBeside(el: Element): string;
  /** Takes what a cue found beside the conversation, if its words say what the cue's text asks without the conversation's. */
  beside: Accept;
}

/** A role the flow needs that no cue of the pack finds. */
export type MissingRole = { kind: 'missing'; role: Role; detail: string };
/**
 * How an answer was found finished: by the site's own signal, or (where no cue finds it) by
 * evidence a pause cannot give: `controls` of the answer's own (its action bar; `copy` when
 * the pack's Copy is among them) appeared once the writing stopped, and the text had been
 * still `stillMs`, the stop control gone; `expected`: the signal had been seen before;
 * `alreadyShown`: the controls were there when the watch first looked, and held `lostSignalMs`.
 */
export type FinishedBy =
  | { kind: 'finished'; by: 'marker' }
  | { kind: 'finished'; by: 'evidence'; controls: number; copy: boolean; stillMs: number; expected: boolean; alreadyShown: boolean };
/**
 * A finished answer, with what the flow reads next taken in the moment the watch saw it end,
 * so reading it costs no more round trips to the page: the one look at it (`finishedLook`),
 * and the model the page names (`modelUsed`; null where it names none, or no reading is given).
 */
export type Finished = FinishedBy & { look: FinishedLook; modelUsed: string | null };
export type TurnOutcome = Finished | TurnProblem | MissingRole;

/** What stands between the flow and the composer, for it to clear (an element to act on, by its index in `obstacles`). */
export type Obstacle =
  | { kind: 'chooser'; text: string } // an A/B chooser: click `preferFirst`
  | { kind: 'mode'; text: string } // a Chat/Work toggle off Chat: click `chatMode`
  | { kind: 'dialog'; text: string } // a modal dialog: Escape, then its close control
  | { kind: 'overlay'; text: string }; // something over the composer that is not a dialog

/** What ends a job on the page (`problem`), else what stands in the way before acting on it. */
export type InTheWay = { problem: TurnProblem; obstacle: null } | { problem: null; obstacle: Obstacle };

/** A point in the viewport, in CSS pixels: where a person's click lands (`clickPoint`). */
export type ViewportPoint = { x: number; y: number };

/**
 * Where a turn's Copy is pressed: the turn (`last`: the last one, not the new one), and the
 * point a click presses it at, if any; `armed`: the clipboard hook was set in the same call
 * (the watch's, as the answer ended), for the press to come.
 */
export type CopyLook = { last: boolean; point: ViewportPoint | null; armed?: boolean };

/** A finished answer, before it is read: what it is when not text, and where its Copy is. */
export type AnswerLook = { nonText: string | null; copy: CopyLook };

/** One look at a finished turn: what is in the way; or, with nothing, its AnswerLook. */
export type FinishedLook = { inTheWay: InTheWay } | ({ inTheWay: null } & AnswerLook);

export interface WatchLimits {
  /** How long the new turn may take to appear while nothing shows the page at work. */
  appearMs: number;
  /** ... and while the stop control shows (a search or a long think before the answer starts). */
  appearWorkingMs: number;
  /** Without the finished signal: how long the answer must stay unchanged, the stop control gone, its controls shown. */
  settleMs: number;
  /** ... and as long where the signal was expected (seen before) and did not come. */
  lostSignalMs: number;
}

/**
 * Selectors for the element around a turn that holds its own roles when they sit beside it
 * (an action bar that is the turn's sibling), tried in order: the first that matches an
 * ancestor of the turn (or the turn) holding no other turn is the scope; else the turn itself.
 */
export type TurnScope = readonly string[];

/** A chip that came into the composer since `markAttachments`, as the flow matches it to a file. */
export interface ChipSeen {
  /** Its `title` and `aria-label` ('' where it has none): the whole file name where the site puts it there. */
  title: string;
  label: string;
  /** Its words without its controls' labels: the name, perhaps cut with an ellipsis, and a badge. */
  text: string;
  /** A busy cue finds it (or something in it): its upload runs. */
  busy: boolean;
}

/** One look at the caller's files in the page. */
export interface AttachmentsSeen {
  chips: ChipSeen[];
  /** The words of each refusal notice that came (or changed) since `markAttachments`. */
  refusals: string[];
  /** How many of the chips `claimChips` took are still in the page. */
  ownLeft: number;
}

/** A box on the viewport, in CSS pixels. */
export type Rect = { x: number; y: number; w: number; h: number };

/** What the flow calls in the page, as `window.__chatbridge` of the helpers' own world (page-world.ts). */
export interface PageHelpers {
  /** The pack the flow sent as its JSON (site.ts, packJson), parsed once per document. */
  pack(json: PagePackJson): PagePack;
  /** The last text the page wrote to the clipboard since `clearClipboard` (through the clipboard API only while the hook is set: copy-hook.ts). */
  clipboard: string | null;
  clearClipboard(): void;
  /** The words the page copied since `clearClipboard`, or copies next, as they come; null if none within `ms`. */
  copied(ms: number): Promise<string | null>;
  /** The first visible element a cue finds (and `accept` takes), trying the cues in order. */
  find(cues: readonly PageCue[] | undefined, root?: ParentNode | null, accept?: Accept): Element | null;
  /** Which cue (its index) finds a visible element now, or -1. */
  which(cues: readonly PageCue[] | undefined, root?: ParentNode | null): number;
  /** The assistant turns on the page, in document order (by the first cue that finds any). */
  turns(pack: PagePack): Element[];
  /**
   * Remembers the assistant turns present now (or only the first `upTo` of them: those before
   * a prompt sent earlier, whose answer is then new), and returns how many are present: the
   * next `newTurn` is one that is not among those remembered.
   */
  markTurns(pack: PagePack, upTo?: number): number;
  /** The first assistant turn that appeared since `markTurns`. */
  newTurn(pack: PagePack): Element | null;
  /** Within the new turn (or, with `last`, the last turn): the first element of `role`, searched in the turn's scope. */
  inTurn(pack: PagePack, role: Role, scope: TurnScope, last?: boolean): Element | null;
  /** The turn's answer as Markdown: every part the first answer cue finds in it, joined (the whole turn if none). */
  answerMarkdown(pack: PagePack, turn: Element): string;
  /**
   * While the new turn's answer renders, the Markdown of the part the page has finished with,
   * read as answerMarkdown reads the whole (so the final answer begins with it), ending with the
   * blank line before the block that follows; '' while nothing is certain.
   */
  settledAnswer(pack: PagePack): string;
  /**
   * Resolves when the new turn ends, one way or another, or a role it needs cannot be found.
   * `markerExpected`: the agent has seen the finished signal end an answer of this site.
   * `reading`: where the model that answered is named, read as the answer ends.
   */
  watchTurn(pack: PagePack, scope: TurnScope, limits: WatchLimits, markerExpected: boolean, reading: ModelReading | null): Promise<TurnOutcome>;
  /**
   * Page-level conditions that end a job: a challenge, an account lock, a login wall, a limit
   * notice; never read from the conversation (conversation.ts), nor from what `acquit` cleared.
   */
  blocker(pack: PagePack): TurnProblem | null;
  /**
   * A fresh page of the site showed no wall nor lock: the ones the blocker would report in the
   * open now are part of this page (a title, a word), and it skips them from now on.
   */
  acquit(pack: PagePack): void;
  /**
   * What the new turn's answer (or the last turn's) is when it is not text: a file card, an
   * image or a canvas with no words beside it, in words ("a file (\"report.pdf\")"); null for text.
   */
  nonText(pack: PagePack): string | null;
  /**
   * The clipboard emptied, and where the Copy of the turn to read is pressed: the new turn, or
   * with `last` (or when no turn is new: after an A/B pick the page may re-render it) the last
   * one; its point when the Copy is in view with nothing over it (`clickPoint`).
   */
  copyLook(pack: PagePack, scope: TurnScope, last: boolean): CopyLook;
  /** What the new turn's answer is when not text (`nonText`), and where its Copy is pressed (`copyLook`). */
  answerLook(pack: PagePack, scope: TurnScope): AnswerLook;
  /**
   * The one look at a finished turn before it is read: what is in the way, else its
   * `answerLook`. `problem`: as for `inTheWay`.
   */
  finishedLook(pack: PagePack, scope: TurnScope, problem?: TurnProblem | null): FinishedLook;
  /**
   * The model the page names after the answer, or null where it names none: the first of
   * `reading`'s places that names one (decisions.md, "Models and modes").
   */
  modelUsed(pack: PagePack, scope: TurnScope, reading: ModelReading): string | null;
  /** Whether the page shows a conversation: an assistant's turn or the person's. */
  showsConversation(pack: PagePack): boolean;
  /** What stands in the way of acting on the page, if anything. */
  obstacle(pack: PagePack): Obstacle | null;
  /**
   * What ends the job (`blocker`), else what stands in the way (`obstacle`); null when nothing
   * does. `problem`: the blocker the caller found earlier in the same call (null: none), not
   * looked for again; the page cannot change between the two.
   */
  inTheWay(pack: PagePack, problem?: TurnProblem | null): InTheWay | null;
  /** The element to click for an obstacle (the chooser's first answer, the Chat toggle, a dialog's close control). */
  obstacleControl(pack: PagePack, obstacle: Obstacle): Element | null;
  /** Per role, the index of the cue that finds it now (turn roles in the new or last turn), or -1. */
  report(pack: PagePack, scope: TurnScope): Partial<Record<Role, number>>;
  /**
   * A copy of the page's HTML that cannot carry the conversation: every letter and digit of
   * its text and of its text-bearing attributes replaced by `x` (lengths and whitespace kept),
   * but where all its words are among `words`, the site's interface words; script text and
   * comments always. The live page is not touched.
   */
  scrubbedHtml(words: readonly string[]): string;
  /** Where the controls are whose words are all among `words` (or that have none): the parts of a screenshot left sharp. */
  controlRects(words: readonly string[]): Rect[];
  /** A PNG screenshot of the viewport (base64) blurred everywhere but `sharp`, drawn off the page; the page is not touched. */
  blurShot(png: string, sharp: readonly Rect[]): Promise<string>;
  /** The element, in no document, that the clipboard hook in the page's own world reports a copy to (copy-hook.ts). */
  copyChannel(): Element;
  /** Sets the clipboard hook from this world (copy-hook.ts): false where this document has no channel yet (`copyChannel`, made from Node). */
  armCopyHook(): boolean;
  /** The page's own file input by the pack's `attachments` cues (hidden, so found without being visible). */
  fileInput(pack: PagePack): Element | null;
  /** Which `fileInput` cue finds it (its index), or -1. */
  fileInputCue(pack: PagePack): number;
  /** Remembers the chips and refusal notices on the page now: `attachmentsSeen` reports only what comes after. */
  markAttachments(pack: PagePack): void;
  /** The chips and refusal notices that came since `markAttachments`. */
  attachmentsSeen(pack: PagePack): AttachmentsSeen;
  /** Takes the chips of the last look at these indices as the caller's files; returns how many it took. */
  claimChips(indices: readonly number[]): number;
  /** A file the composer made of the prompt (the `attachment` role), never one of the caller's chips. */
  pasteCard(pack: PagePack): Element | null;
  /** The send control: found and enabled, found disabled, or not found. */
  sendState(pack: PagePack): 'enabled' | 'disabled' | 'none';
  /** Where the element sits in the tree, for Playwright to find it from its own world (page-world.ts); null once it left the page. */
  pathOf(el: Element): string | null;
  /** Where a click lands on the element at once: its centre, in the viewport, with nothing else on top there; null otherwise. */
  clickPoint(el: Element): ViewportPoint | null;
  toMarkdown(element: Element): string;
}

/**
 * The object the modules build together in the page: the public helpers and what the
 * modules share among themselves. A module reads another's members when it is called,
 * never when it is installed, so the order of installation does not matter.
 */
export interface Helpers extends PageHelpers {
  /** Shown to a person (see cues.ts). */
  visible(el: Element): boolean;
  /** Every visible element under `root` one cue finds, in document order. */
  findAll(cue: PageCue, root: ParentNode): Element[];
  /** A cue's pattern as something to test a text with: a user's reads at most its limit of the text. */
  regex(pattern: PagePattern | undefined): { test(text: string): boolean } | null;
  /** What assistive technology would call the element. */
  accessibleName(el: Element): string;
  /** A notice's words for a person (its buttons' labels left out), whitespace collapsed and cut to 500 characters. */
  textOf(el: Element): string;
  /** The person's turns on the page, in document order (by the first cue that finds any). */
  userTurns(pack: PagePack): Element[];
  /** What belongs to the conversation, for one look at the page. */
  conversation(pack: PagePack): Conversation;
  /** Where a turn's own roles are looked for: see TurnScope. */
  scopeOf(pack: PagePack, turn: Element, scope: TurnScope): Element;
  /** A turn-level role on the turn itself or within `root`, its scope. */
  inScope(turn: Element, cues: readonly PageCue[] | undefined, root: Element): Element | null;
  /** The elements holding the turn's answer: every one the first answer cue that finds any finds, outermost only. */
  answerParts(pack: PagePack, turn: Element): Element[];
  /** The Markdown blocks of `parts` that an answer still rendering has finished: all but the last, up to a block only a click would read. */
  settledBlocks(parts: Element[]): string[];
}

/** A module of the page helpers: adds its members to the shared object. Must be self-contained (see page-helpers.ts). */
export type HelperModule = (h: Helpers) => void;

/**
 * The helpers are a global of their own world only. Tests of the helpers' logic on markup of
 * their own put the same script in a page's world (test/support/helpers-page.ts), and reach them so.
 */
declare global {
  interface Window {
    __chatbridge?: PageHelpers;
  }
}
