import { parseClockTime } from './limit-reset.js';
import type { ProviderSite } from './site.js';

/** chatgpt.com — research/providers.md §2. */
export const chatgpt: ProviderSite = {
  provider: 'chatgpt',
  name: 'ChatGPT',
  baseUrl: 'https://chatgpt.com',
  newChatPath: '/',
  // The persisted id; the transient `/c/WEB:<request id>` shown first must not match.
  conversationPath: /^\/c\/[A-Za-z0-9-]+$/,
  loginUrl: /^https?:\/\/[^/]+\/(auth|login|signin)([/?#]|$)|^https:\/\/auth\.openai\.com\//,
  loginUrlPath: '/auth/login',
  input: 'paste',
  turnScope: 'article[data-testid^="conversation-turn"]',
  selectors: {
    composer: ['#prompt-textarea[contenteditable="true"]', 'div.ProseMirror[contenteditable="true"]', 'textarea[name="prompt-textarea"]'],
    send: ['button[data-testid="send-button"]', '#composer-submit-button[aria-label*="Send" i]', 'button[aria-label="Send prompt"]'],
    stop: ['button[data-testid="stop-button"]', 'button[data-testid="composer-stop-button"]', 'form button[aria-label^="Stop stream" i]'],
    assistantTurn: ['[data-message-author-role="assistant"]', '[data-conversation-role="assistant"]', '[data-turn="assistant"]'],
    answer: ['.markdown', '[data-message-content]'],
    finished: ['button[data-testid="copy-turn-action-button"]', 'button[data-testid="good-response-turn-action-button"]'],
    copy: ['button[data-testid="copy-turn-action-button"]'],
    loginWall: ['[data-testid="login-button"]', 'a[href*="/auth/login"]', '[role="dialog"] |text=/^Log in to get answers/i'],
    limitBanner: [
      '[role="alert"] |text=/(usage|message) (limit|cap)|too many requests|temporarily limited/i',
      '[role="status"] |text=/(usage|message) (limit|cap)|too many requests/i',
    ],
    errorCard: ['.text-token-text-error', 'button[data-testid="regenerate-thread-error-button"]'],
    // A policy notice beside the answer body, never words inside it (the answer may quote the prompt).
    refusal: ['[data-message-author-role="assistant"] > div:not(.markdown) |text=/violate our (usage|content) polic/i'],
    challenge: ['#challenge-form', '#challenge-running', 'iframe[src*="challenges.cloudflare.com"]'],
  },
  parseLimitReset: parseClockTime,
};
