import type { ProviderSite } from './site.js';

/** www.perplexity.ai — research/providers.md §7. */
export const perplexity: ProviderSite = {
  provider: 'perplexity',
  name: 'Perplexity',
  baseUrl: 'https://www.perplexity.ai',
  newChatPath: '/',
  // The thread moves from /search/new/… to its final slug once answered.
  conversationPath: /^\/search\/(?!new(\/|$))[A-Za-z0-9._-]+$/,
  loginUrl: /^https?:\/\/[^/]+\/account\/signin([/?#]|$)/,
  loginUrlPath: '/account/signin',
  input: 'paste',
  selectors: {
    composer: ['#ask-input[contenteditable="true"]', 'div[contenteditable="true"][data-lexical-editor="true"]'],
    send: ['button[aria-label="Submit"]', 'button[data-testid="submit-button"]'],
    stop: ['button[aria-label="Stop"]', 'button[data-testid="stop-button"]', 'button[data-testid="stop-generating-response-button"]'],
    assistantTurn: ['[data-workflow-final-text]'],
    answer: ['.prose', '[data-workflow-final-text]'],
    finished: ['[data-workflow-text-footer] button[aria-label*="Copy"]'],
    copy: ['[data-workflow-text-footer] button[aria-label*="Copy"]'],
    loginWall: ['button |text=/^Sign in$/'],
    limitBanner: ['[class*="banner"] |text=/limit|reached|quota/i', '[role="alert"] |text=/limit|reached|quota/i'],
    errorCard: ['[role="alert"] |text=/something went wrong/i'],
    refusal: ['[data-testid="refusal"]'],
    challenge: ['#challenge-form', 'iframe[src*="challenges.cloudflare.com"]'],
  },
};
