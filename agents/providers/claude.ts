import type { ProviderSite } from './site.js';

/**
 * claude.ai — research/providers.md §3, with the field notes it cites (the claude.ai
 * selector log of 2026-08-27…31 and the 2026 adapters). Real selectors come first in every
 * list; nothing here exists only in the simulator.
 *
 * Known limits of this pack on the real site:
 * - the transcript is virtualized (only ~6 rows of a long conversation are in the DOM), and
 *   the flow finds the new answer by counting assistant turns, so continuing a very long
 *   conversation can lose the new turn when older rows are unmounted;
 * - error and refusal notices are matched by their words (the real ones have no test ids).
 */

const ROW = '[data-testid="transcript-row"]';
const ASSISTANT_ROW = `${ROW}[data-perf-row="assistant"]`;
/** The newest assistant row: notices in older rows of a continued conversation are history. */
const NEWEST_ASSISTANT_ROW = `${ASSISTANT_ROW}[data-last-message="true"]`;

/**
 * Elements that are not the reply's text, not inside it and do not contain it (nor the
 * screen-reader heading that previews it): notices about a reply are matched only there, so
 * an answer that quotes their words cannot trip them.
 */
const REPLY = '.font-claude-response, .standard-markdown, [data-cds="Prose"], [data-perf-reply-text], .sr-only';
const OUTSIDE_REPLY = `:not(${REPLY}, :is(${REPLY}) *, :has(${REPLY}))`;

/** Likewise page-wide: outside the transcript and the composer (which hold the user's own words). */
const CHAT = '[data-testid="transcript-list"], [contenteditable="true"]';
const OUTSIDE_CHAT = `:not(${CHAT}, :is(${CHAT}) *, :has(${CHAT}))`;

/** `CSS |text=/re/flags`: an element matching CSS whose text matches. */
const withText = (css: string, re: RegExp) => `${css} |text=${re}`;

export const claude: ProviderSite = {
  provider: 'claude',
  name: 'Claude',
  baseUrl: 'https://claude.ai',
  newChatPath: '/new',
  // `/new` has no id; the app switches to /chat/<uuid> without a reload after the first send.
  conversationPath: /^\/chat\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  // Signed out: /login (?returnTo=), the magic-link landing, OAuth round trips.
  loginUrl: /^https?:\/\/[^/]+\/(login|oauth|auth|magic-link)([/?#]|$)/,
  loginUrlPath: '/login',
  // TipTap/ProseMirror: a synthetic paste is accepted whole (confirmed 2026-08-27).
  input: 'paste',
  // Turn-level roles are searched in the whole row, also when a fallback turn selector
  // (the inner assistant-message wrapper) is the one that matched.
  turnScope: ROW,
  selectors: {
    composer: [
      '[data-testid="chat-input"][contenteditable="true"]',
      '[data-testid="chat-input"] [contenteditable="true"]',
      'div.ProseMirror[contenteditable="true"]',
      '[data-composer-editor][contenteditable="true"]',
      '[data-composer-editor] [contenteditable="true"]',
      // 2026-09 snapshot of a design-system build.
      '[data-cds="Editor"][contenteditable="true"]',
    ],
    // Present but disabled+inert while the composer is empty; "Use voice mode" is next to it,
    // never a fallback. The aria-label is English-only.
    send: ['button[data-testid="chat-input-send"]', 'button[aria-label="Send message"]'],
    stop: ['[data-testid="chat-input-stop"]', 'button[aria-label="Stop response"]'],
    assistantTurn: [ASSISTANT_ROW, '[data-testid="assistant-message"]', 'div[data-is-streaming]'],
    // The first text block; `.font-claude-response` also holds search/thinking chips.
    answer: ['.font-claude-response .standard-markdown', '[data-cds="Prose"]', '[data-perf-reply-text]', '.font-claude-response'],
    // Per turn: the row's flag flips "true"→"false" when that turn is done and survives
    // tool-use pauses; the older wrapper flag; the retry control that only a finished reply has.
    finished: ['[data-perf-row-streaming="false"]', '[data-is-streaming="false"]', '[data-testid="action-bar-retry"]'],
    // Copies the reply's Markdown.
    copy: ['[data-testid="action-bar-copy"]'],
    loginWall: ['button[data-testid="login-with-google"]', 'a[href="/login"]', 'a[href^="/login?"]'],
    limitBanner: [
      // "You are out of free messages until 10:00 AM" + Upgrade (captured page text). Anchored at
      // the element's start, so sidebar titles and containers that merely include it do not match.
      withText(OUTSIDE_CHAT, /^\W*(You are|You['’]re) out of free messages until/i),
      withText(
        OUTSIDE_CHAT,
        /^\W*((usage|message) limit reached|(5|five)-hour limit reached|you['’]ve (hit|reached) your (usage |message )?limit)/i,
      ),
      // Detector phrases public scripts use. Not "limits will reset" / "upgrade for higher
      // limits" alone: those also appear in the warning shown before the limit is reached.
      withText(
        '[role="alert"]',
        /out of free messages|usage limit reached|message limit reached|(5|five)-hour limit reached|hit your limit for claude messages/i,
      ),
    ],
    errorCard: [
      // An interrupted reply: "Claude's response was interrupted." with "Edit prompt" and
      // "Try again" buttons that carry no test id or label (observed 2026-08-29, English only).
      withText(`${NEWEST_ASSISTANT_ROW} ${OUTSIDE_REPLY}`, /^\W*Claude['’]s response (was interrupted|could not be)/i),
      withText(`${NEWEST_ASSISTANT_ROW} button[data-cds="Button"]`, /^\s*Try again\s*$/),
      // Page-level toasts when no reply row appears (wording from public reports, unverified markup).
      withText(
        '[role="alert"]',
        /response was interrupted|something went wrong|an error occurred|capacity constraints|unable to respond to your message|maximum length for this conversation/i,
      ),
    ],
    // The research has no refusal markup: this is the wording of the usage-policy notice
    // claude.ai shows under a blocked reply (from public reports, unverified), matched only
    // outside the reply's own text. The model's name may sit between "Claude" and "is unable".
    refusal: [withText(`${ASSISTANT_ROW} ${OUTSIDE_REPLY}`, /^\W*Claude\b[^\n]{0,40}?\bis unable to respond to this request/i)],
    // Cloudflare is in front of claude.ai ("Just a moment..."); reCAPTCHA runs invisibly on
    // normal pages, so its frames are not a challenge signal.
    challenge: ['#challenge-form', '#challenge-running', 'iframe[src*="challenges.cloudflare.com"]'],
  },
  parseLimitReset: parseClaudeLimitReset,
};

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/**
 * When Claude's limit notice says the limit lifts: "until 10:00 AM", "resets 3pm", "at 15:00",
 * "until tomorrow at 9 AM", "resets Thu 9:00 AM" (weekly limits). The next such time after
 * `now`, in the machine's time zone (the page shows local time); null if it does not say.
 */
export function parseClaudeLimitReset(text: string, now: Date): number | null {
  // A clock time with AM/PM (minutes optional), or a 24-hour h:mm. The AM/PM letters may run
  // into the next word in textContent ("10:00 AMUpgrade") but not into lowercase ("3 amazing").
  const m = /(?<![\d:])(\d{1,2})(?::(\d{2}))?\s?([AaPp])\.?[Mm]\.?(?![a-z])|(?<![\d:])(\d{1,2}):(\d{2})(?![\d:])/.exec(text);
  if (!m) return null;
  let hours = Number(m[1] ?? m[4]);
  const minutes = Number(m[2] ?? m[5] ?? 0);
  const meridiem = m[3]?.toLowerCase();
  if (meridiem) {
    if (hours < 1 || hours > 12) return null;
    hours = (hours % 12) + (meridiem === 'p' ? 12 : 0);
  }
  if (hours > 23 || minutes > 59) return null;
  const before = text.slice(0, m.index);
  const weekday = /\b(sun|mon|tue|wed|thu|fri|sat)[a-z]*\.?,?\s*(at\s*)?$/i.exec(before)?.[1];
  const at = new Date(now);
  at.setHours(hours, minutes, 0, 0);
  if (weekday) {
    at.setDate(at.getDate() + ((WEEKDAYS.indexOf(weekday.toLowerCase()) - at.getDay() + 7) % 7));
    if (at.getTime() <= now.getTime()) at.setDate(at.getDate() + 7);
  } else if (/\btomorrow\b/i.test(before)) {
    at.setDate(at.getDate() + 1);
  } else if (at.getTime() <= now.getTime()) {
    at.setDate(at.getDate() + 1);
  }
  return at.getTime();
}
