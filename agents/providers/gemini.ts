import type { ProviderSite } from './site.js';

/** gemini.google.com — research/providers.md §4. Labels are localized: prefer tags and test ids. */
export const gemini: ProviderSite = {
  provider: 'gemini',
  name: 'Gemini',
  baseUrl: 'https://gemini.google.com',
  newChatPath: '/app',
  conversationPath: /^\/app\/[A-Za-z0-9_-]+$/,
  loginUrl: /^https:\/\/accounts\.google\.com\/|^https?:\/\/[^/]+\/signin([/?#]|$)/,
  loginUrlPath: '/signin',
  input: 'paste',
  selectors: {
    composer: ['rich-textarea div.ql-editor[contenteditable="true"]', 'div.ql-editor[contenteditable="true"][role="textbox"]'],
    send: ['div[data-test-id="send-button-container"] button.send-button', 'button.send-button'],
    stop: ['button.send-button.stop', 'button[aria-label="Stop response"]'],
    assistantTurn: ['model-response'],
    answer: ['message-content .markdown'],
    finished: ['.response-footer.complete'],
    copy: ['message-actions copy-button button'],
    loginWall: ['a[href*="accounts.google.com"]'],
    limitBanner: ['[role="alert"] |text=/limit|quota/i'],
    errorCard: ['[role="alert"] |text=/something went wrong|try again/i'],
    refusal: ['[data-test-id="refusal"]'],
    challenge: ['#challenge-form', 'iframe[src*="recaptcha"]'],
  },
};
