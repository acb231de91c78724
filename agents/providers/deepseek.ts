import type { ProviderSite } from './site.js';

/** chat.deepseek.com — research/providers.md §5. No aria labels; hashed classes churn. */
export const deepseek: ProviderSite = {
  provider: 'deepseek',
  name: 'DeepSeek',
  baseUrl: 'https://chat.deepseek.com',
  newChatPath: '/',
  conversationPath: /^\/a\/chat\/s\/[0-9a-f-]{36}$/,
  loginUrl: /^https?:\/\/[^/]+\/(sign_in|sign_up|login|auth)([/?#]|$)/,
  loginUrlPath: '/sign_in',
  input: 'fill',
  selectors: {
    composer: ['textarea#chat-input', 'textarea.ds-scroll-area', 'textarea'],
    send: ['div[role="button"].ds-button--primary:not(.ds-button--disabled)'],
    stop: ['div[role="button"].ds-button--primary.ds-button--stop'],
    assistantTurn: ['div.ds-message:has(.ds-markdown)'],
    answer: ['.ds-markdown:not(.ds-think-content .ds-markdown)'],
    finished: ['.ds-message-actions'],
    copy: ['.ds-message-actions [role="button"]'],
    loginWall: ['a[href^="/sign_in"]'],
    limitBanner: ['[role="alert"] |text=/limit/i'],
    errorCard: ['.ds-markdown |text=/^(Server busy|服务器繁忙)/'],
    refusal: ['.ds-refusal'],
    challenge: ['#challenge-form', 'iframe[src*="challenges.cloudflare.com"]'],
  },
};
