import { parseClockTime } from './limit-reset.js';
import type { ProviderSite } from './site.js';

/** claude.ai — research/providers.md §3. */
export const claude: ProviderSite = {
  provider: 'claude',
  name: 'Claude',
  baseUrl: 'https://claude.ai',
  newChatPath: '/new',
  conversationPath: /^\/chat\/[0-9a-f-]{36}$/,
  loginUrl: /^https?:\/\/[^/]+\/(login|oauth|auth|magic-link)([/?#]|$)/,
  loginUrlPath: '/login',
  input: 'paste',
  selectors: {
    composer: ['[data-testid="chat-input"][contenteditable="true"]', 'div.ProseMirror[contenteditable="true"]'],
    send: ['button[data-testid="chat-input-send"]', 'button[aria-label="Send message"]'],
    stop: ['button[data-testid="chat-input-stop"]', 'button[aria-label="Stop response"]'],
    assistantTurn: ['[data-testid="transcript-row"][data-perf-row="assistant"]'],
    answer: ['.font-claude-response .standard-markdown', '.font-claude-response'],
    finished: ['[data-perf-row-streaming="false"]', '[data-testid="action-bar-retry"]'],
    copy: ['[data-testid="action-bar-copy"]'],
    loginWall: ['a[href^="/login"]'],
    limitBanner: ['[role="alert"] |text=/out of free messages|usage limit|message limit|limit will reset/i'],
    errorCard: ['[role="alert"] |text=/something went wrong|an error occurred/i'],
    refusal: ['[data-testid="refusal-notice"]'],
    challenge: ['#challenge-form', '#challenge-running', 'iframe[src*="challenges.cloudflare.com"]'],
  },
  parseLimitReset: parseClockTime,
};
