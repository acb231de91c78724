import { parseClockTime } from './limit-reset.js';
import type { ProviderSite } from './site.js';

/**
 * chat.deepseek.com — research/providers.md §5. No aria labels anywhere, layout classes are
 * build hashes that churn ("DeepSeek changes selectors frequently"): everything here keys
 * on the `ds-` design-system classes, ids, roles and structure.
 */

/** The last message block on the page: an older turn's words never count for this one. */
const LAST_BLOCK = 'div:has(> div.ds-message):not(:has(~ * div.ds-message))';
/** That block's answer text, outside the reasoning. */
const LAST_ANSWER = `${LAST_BLOCK} > div.ds-message .ds-markdown:not(.ds-think-content .ds-markdown)`;
/** ... once the stream has ended: the actions row is under it, or the send slot is idle again. */
const ENDED_ANSWERS = [
  `${LAST_BLOCK} > div.ds-message:has(+ div .ds-icon-button) .ds-markdown:not(.ds-think-content .ds-markdown)`,
  `body:has(div[role="button"].ds-button--primary.ds-button--disabled) ${LAST_ANSWER}`,
];
/**
 * The busy message is rendered as the answer itself, so it is recognised only as the whole
 * text of an ended answer: an answer that quotes the words has more text around them, and
 * one that merely starts with them mid-stream has not ended. The Chinese text is captured;
 * the English ones are the commonly reported wordings (unverified, research §5).
 */
const BUSY = /^\s*(?:Server busy, please try again later\.|The server is busy\. Please try again later\.|服务器繁忙，请稍后再试。)\s*$/;
/**
 * The canned deflection that replaces a censored answer — widely reported wording, not in
 * the research file; matched the same way, as the whole ended answer.
 */
const DEFLECTION = /^\s*(?:Sorry, that['’]s beyond my current scope\. Let['’]s talk about something else\.|你好，这个问题我暂时无法回答，让我们换个话题再聊聊吧。)\s*$/;
const LIMIT = /usage limit|message limit|reached (?:the|your) limit|too many requests|rate limit|上限|频繁/i;

export const deepseek: ProviderSite = {
  provider: 'deepseek',
  name: 'DeepSeek',
  baseUrl: 'https://chat.deepseek.com',
  newChatPath: '/',
  conversationPath: /^\/a\/chat\/s\/[0-9a-f-]{36}$/i,
  loginUrl: /^https?:\/\/[^/]+\/(sign_in|sign_up|login|auth)([/?#]|$)/,
  loginUrlPath: '/sign_in',
  input: 'fill',
  // Each message sits in its own block wrapper (a hashed class); the actions row is the
  // message's next sibling inside it (CodeWebChat `div.ds-message + div > div.ds-flex`,
  // codey reaches it two levels up from `.ds-markdown`).
  turnScope: 'div:has(> div.ds-message)',
  selectors: {
    composer: ['textarea#chat-input', 'textarea.ds-scroll-area', 'textarea[placeholder*="DeepSeek"]'],
    // One slot for send and stop, told apart by state: enabled with text = send.
    send: [
      'div[role="button"].ds-button--primary:not(.ds-button--disabled)',
      'input[type="file"] + div[role="button"][aria-disabled="false"]',
    ],
    // The same slot while generating: the stop square (OneClickPrompts keys on `svg rect`);
    // else CodeWebChat's "enabled while the composer is empty" — never while it holds text,
    // where the slot is send.
    stop: [
      'div[role="button"].ds-button--primary:not(.ds-button--disabled):has(svg rect)',
      'body:has(textarea#chat-input:placeholder-shown) input[type="file"] + div[role="button"][aria-disabled="false"]',
    ],
    // The assistant's message is the one holding `.ds-markdown` (reasoning included: the
    // turn exists from its first thought on).
    assistantTurn: ['div.ds-message:has(.ds-markdown)'],
    answer: ['.ds-assistant-message-main-content:not(.ds-think-content *)', '.ds-markdown:not(.ds-think-content .ds-markdown)'],
    // Siblings of the message only: nothing inside it (code-banner buttons, the reasoning
    // toggle) can pass for the row while it streams.
    finished: ['div.ds-message + div > div.ds-flex > .ds-icon-button', 'div.ds-message ~ div .ds-icon-button[role="button"]'],
    copy: ['div.ds-message + div > div.ds-flex > .ds-icon-button:first-child', 'div.ds-message ~ div [role="button"]'],
    loginWall: ['a[href^="/sign_in"]', 'a[href^="/sign_up"]', 'input[type="tel"][placeholder*="phone" i]'],
    // Invented markup (the research has no DeepSeek limit wording); any alert naming a limit.
    limitBanner: [`.ds-toast |text=/${LIMIT.source}/i`, `[role="alert"] |text=/${LIMIT.source}/i`],
    errorCard: ENDED_ANSWERS.map((css) => `${css} |text=/${BUSY.source}/`),
    refusal: [
      // Invented for the simulator: a notice beside the answer body.
      'div.ds-message .ds-refusal-notice',
      ...ENDED_ANSWERS.map((css) => `${css} |text=/${DEFLECTION.source}/`),
    ],
    // Cloudflare's challenge page (research §5: `__cf_chl` challenge HTML).
    challenge: ['#challenge-form', '#challenge-running', 'iframe[src*="challenges.cloudflare.com"]'],
  },
  parseLimitReset: parseClockTime,
};
