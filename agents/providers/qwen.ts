import { parseClockTime } from './limit-reset.js';
import type { ProviderSite } from './site.js';

/**
 * chat.qwen.ai — research/providers.md §6 (codey's selectors "verified against the live
 * page"). The idle send icon can show while an answer still streams, so the only finished
 * signal is the action-icon row in the turn's `.response-message-footer`.
 */

const ACTION = 'qwen-chat-package-comp-new-action-control';
const TURN = ':is(.chat-response-message, .qwen-chat-message-assistant)';
const LIMIT = /usage limit|daily limit|message limit|reached (?:the|your) limit|quota|too many requests|too frequent|上限|频繁/i;
/** Content-security rejections come through the same "Oops! …" notice as connection errors. */
const SECURITY = /Content Security|inappropriate content/i;

export const qwen: ProviderSite = {
  provider: 'qwen',
  name: 'Qwen',
  baseUrl: 'https://chat.qwen.ai',
  newChatPath: '/',
  // `/c/guest` is the anonymous chat, not a conversation.
  conversationPath: /^\/c\/(?!guest$)[0-9a-f-]{36}$/i,
  // `/auth?action=signin|signup`; older builds used `/login?redirect=` (research §10).
  loginUrl: /^https?:\/\/[^/]+\/(auth|login)([/?#]|$)/,
  loginUrlPath: '/auth',
  input: 'fill',
  selectors: {
    composer: ['textarea.message-input-textarea', '.message-input-container textarea', 'textarea#chat-input'],
    send: ['button.send-button:not(.disabled):not([disabled])'],
    stop: ['button.stop-button:not(.disabled):not([disabled])', `.${ACTION}-container-stop`],
    // `.qwen-chat-message-assistant` is the 2026 block wrapper (strahser/LocalAssitent notes,
    // 2026-08-06), tried when the research's turn class is gone.
    assistantTurn: ['.chat-response-message', '.qwen-chat-message-assistant'],
    answer: ['.response-message-content.phase-answer'],
    finished: [
      // Matched on the turn itself, so it holds even where the footer is hidden until the
      // pointer hovers the message (`.response-message-footer-none`, display:none, seen
      // 2026-08-06) — a visibility check would wait forever there.
      `${TURN}:has(.response-message-footer .${ACTION}-container-copy)`,
      `${TURN}:has(.response-message-footer .${ACTION}-icons [role="button"])`,
    ],
    copy: [`.response-message-footer .${ACTION}-container-copy`, '.response-message-footer div[role="button"][aria-label="Copy"]'],
    // Invented dialog for the simulator; on the real site guests see the same login links.
    loginWall: ['a[href^="/auth?action=signin"]', 'a[href^="/auth?action=signup"]', 'a[href="/auth"]'],
    // Invented: antd message/notification toasts naming a limit.
    limitBanner: [
      `.ant-message-notice-content |text=/${LIMIT.source}/i`,
      `.ant-notification-notice |text=/${LIMIT.source}/i`,
      `[role="alert"] |text=/${LIMIT.source}/i`,
    ],
    errorCard: [
      // Invented markup; the content-security variant is a refusal, not an error.
      `.response-message-error |text=/^(?![\\s\\S]*(?:${SECURITY.source}))/i`,
      // The connection error rendered as the answer (field notes 2026-08: "Oops! … issue
      // connecting", "Сетевая ошибка"), only as the whole text of a turn that has its footer.
      `${TURN}:has(.response-message-footer) .response-message-content.phase-answer |text=/^\\s*(?:Oops! There was an issue connecting to Qwen(?![\\s\\S]*(?:${SECURITY.source}))[\\s\\S]{0,200}|Сетевая ошибка[.!]?)\\s*$/i`,
    ],
    refusal: [
      // Invented for the simulator: a notice beside the answer body.
      '.response-message-security-warning',
      `.response-message-error |text=/${SECURITY.source}/i`,
      `${TURN}:has(.response-message-footer) .response-message-content.phase-answer |text=/^\\s*Oops! There was an issue connecting to Qwen[\\s\\S]{0,80}(?:${SECURITY.source})[\\s\\S]{0,200}$/i`,
    ],
    challenge: [
      // Alibaba's slider CAPTCHA and risk-control pages (research §6: `/punish?`,
      // `action=captcha`, "Please drag the slider below to complete the verification").
      'iframe[src*="/punish"]',
      'iframe[src*="action=captcha"]',
      '#nc_1_wrapper',
      '.baxia-dialog',
      '[role="dialog"] |text=/drag the slider below to complete the verification/i',
      // A Cloudflare-style interstitial (what the simulator shows for a challenge).
      '#challenge-form',
      '#challenge-running',
    ],
  },
  parseLimitReset: parseClockTime,
};
