import { parseClockTime } from './limit-reset.js';
import type { ProviderSite } from './site.js';

/** A response whose markdown is no longer `aria-busy`: whatever its footer says, a busy one is not finished. */
const NOT_BUSY = 'model-response:has(message-content .markdown[aria-busy="false"])';

/**
 * gemini.google.com — research/providers.md §4.
 *
 * Gemini's labels are localized (`aria-label="プロンプトを送信"` on a Japanese UI), so every
 * role leads with custom element names, `data-test-id`s, classes Quill and Material give
 * and Material icon names (`mat-icon[fonticon]`), and keeps English labels as the last
 * fallback only.
 */
export const gemini: ProviderSite = {
  provider: 'gemini',
  name: 'Gemini',
  baseUrl: 'https://gemini.google.com',
  newChatPath: '/app',
  // `/app/<hex id>`; the 2026-09 "spark" route promotes chats to `/spark/chat/<id>`.
  conversationPath: /^\/(?:app|spark\/chat)\/[A-Za-z0-9_-]+$/,
  // In reality a lost Google session ends at accounts.google.com; the simulator signs in at
  // its own `/signin`.
  loginUrl: /^https:\/\/accounts\.google\.com\/|^https?:\/\/[^/]+\/signin([/?#]|$)/,
  loginUrlPath: '/signin',
  // A paste carries the whole prompt, newlines included, in one event. Unverified on the
  // real site: the hidden `div.ql-clipboard` says Quill 1, whose stock paste handler ignores
  // the event's data (it lets the browser paste into that catcher, which a synthetic event
  // never does). If a real Gemini composer stays empty after the paste, switch to `fill`:
  // the browser's own text insertion, as `execCommand('insertText')` in the research,
  // which Quill always hears — but slow, seconds per thousand lines.
  input: 'paste',
  selectors: {
    // Never `div.ql-clipboard`, Quill's second, off-screen contenteditable.
    composer: [
      'rich-textarea div.ql-editor[contenteditable="true"]',
      '[data-test-id="textarea-inner"] div.ql-editor[contenteditable="true"]',
      'div.ql-editor.textarea[contenteditable="true"]',
      'rich-textarea [contenteditable="true"][role="textbox"]:not(.ql-clipboard)',
    ],
    // Absent until the composer has text; the microphone shares its container.
    send: [
      '[data-test-id="send-button-container"] button.send-button:not(.stop)',
      'button.send-button:not(.stop):has(mat-icon[fonticon="send"])',
      'button.send-button[aria-label="Send message"]',
    ],
    stop: ['button:has(mat-icon[fonticon="stop"])', 'button.send-button.stop', 'button[aria-label="Stop response"]'],
    // Not `.conversation-container`: it wraps the user's query too.
    assistantTurn: ['model-response'],
    answer: ['message-content .markdown', '.markdown-main-panel', 'message-content'],
    // `.response-footer.complete` (oracle) with the markdown no longer `aria-busy` (live
    // probe); the second entry covers a page that stopped marking `aria-busy` at all.
    finished: [`${NOT_BUSY} .response-footer.complete`, 'model-response:not(:has(message-content [aria-busy])) .response-footer.complete'],
    // In `message-actions`: code blocks carry copy buttons with the same icon. The test id
    // is unverified (not in the research).
    copy: [
      'message-actions copy-button button',
      'message-actions button[data-test-id="copy-button"]',
      'message-actions button:has(mat-icon[fonticon="content_copy"])',
    ],
    // Sign-in links only: a signed-in page links to accounts.google.com as well (the
    // account button goes to SignOutOptions). `/signin` is the simulator's stand-in.
    loginWall: [
      'a[href^="https://accounts.google.com/ServiceLogin"]',
      'a[href^="https://accounts.google.com/"][href*="/signin/"]',
      'a[href^="/signin"]',
    ],
    // The research found no DOM banner for Gemini's usage limit (only server code 1037):
    // the test id is the simulator's; the text is an English-only guess for the real site.
    limitBanner: ['[data-test-id="usage-limit-banner"]', '[role="alert"] |text=/usage limit|reached your limit|limit resets/i'],
    // Invented in the simulator likewise (no verified Gemini error card).
    errorCard: ['[data-test-id="response-error"]', 'model-response [role="alert"] |text=/something went wrong/i'],
    // A real refusal reads like an answer; the simulator marks its refusals beside the text.
    refusal: ['[data-test-id="blocked-response-notice"]'],
    // Google's "unusual traffic" page (google.com/sorry) and the simulator's bot check.
    challenge: ['#captcha-form', 'form[action*="/sorry/"]', '#challenge-form', '#challenge-running'],
  },
  // "Try again after 10:42 PM"; a banner without a time gives the default cooldown.
  parseLimitReset: parseClockTime,
};
