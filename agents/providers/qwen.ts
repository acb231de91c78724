import type { ProviderSite } from './site.js';

/** chat.qwen.ai — research/providers.md §6. */
export const qwen: ProviderSite = {
  provider: 'qwen',
  name: 'Qwen',
  baseUrl: 'https://chat.qwen.ai',
  newChatPath: '/',
  // `/c/guest` is the anonymous chat, not a conversation.
  conversationPath: /^\/c\/(?!guest$)[0-9a-f-]{36}$/,
  loginUrl: /^https?:\/\/[^/]+\/auth([/?#]|$)/,
  loginUrlPath: '/auth',
  input: 'fill',
  selectors: {
    composer: ['textarea.message-input-textarea', 'textarea#chat-input'],
    send: ['button.send-button:not(.disabled):not([disabled])'],
    stop: ['button.stop-button:not(.disabled)', '.qwen-chat-package-comp-new-action-control-container-stop'],
    assistantTurn: ['.chat-response-message'],
    answer: ['.response-message-content.phase-answer'],
    finished: ['.response-message-footer .qwen-chat-package-comp-new-action-control-container-copy'],
    copy: ['.response-message-footer .qwen-chat-package-comp-new-action-control-container-copy'],
    loginWall: ['a[href^="/auth"]'],
    limitBanner: ['[role="alert"] |text=/limit/i'],
    errorCard: ['.response-message-error'],
    refusal: ['.response-message-refusal'],
    challenge: ['#nc_1_wrapper', '.baxia-dialog', 'iframe[src*="captcha"]'],
  },
};
