import { parseClockTime } from './limit-reset.js';
import type { ProviderSite } from './site.js';

/** The stop control while answering; rendered only then (absent, not hidden, when idle). */
const STOP = [
  'button[aria-label="Stop"]',
  'button[data-testid="stop-button"]',
  'button[data-testid="stop-generating-response-button"]',
] as const;

/** www.perplexity.ai — research/providers.md §7. */
export const perplexity: ProviderSite = {
  provider: 'perplexity',
  name: 'Perplexity',
  baseUrl: 'https://www.perplexity.ai',
  newChatPath: '/',
  // The thread moves from /search/new/… to its final slug once answered; a slug made from
  // a non-Latin query is percent-encoded.
  conversationPath: /^\/search\/(?!new(?:\/|$))[^/]+$/,
  // Unconfirmed in the research (modal or page); the simulator signs in here.
  loginUrl: /^https?:\/\/[^/]+\/account\/signin([/?#]|$)/,
  loginUrlPath: '/account/signin',
  // Lexical reads a paste event's data: the prompt goes in whole, newlines included.
  input: 'paste',
  // The actions row is a sibling of the answer: turn-level roles look in their common parent.
  turnScope: ':has(> [data-workflow-final-text])',
  selectors: {
    composer: ['#ask-input[contenteditable="true"]', 'div[contenteditable="true"][data-lexical-editor="true"]'],
    // Absent in the zero state, where "Use voice mode" holds the slot; disabled while empty.
    send: ['button[aria-label="Submit"]', 'button[data-testid="submit-button"]'],
    stop: [...STOP],
    assistantTurn: ['[data-workflow-final-text]', '.prose[data-renderer="lm"]', '[data-testid="answer"]'],
    answer: ['.prose'],
    // The research's best signal: the actions row is there and nothing can still be stopped.
    finished: [`body:not(:has(${STOP.join(', ')})) [data-workflow-text-footer]`],
    // In the actions row only: code blocks carry their own "Copy code" buttons.
    copy: ['[data-workflow-text-footer] button[aria-label="Copy"]', '[data-workflow-text-footer] button[aria-label*="Copy" i]'],
    // Anonymous use is allowed, so the cue is the signed-out page's "Sign in" button.
    loginWall: ['button |text=/^\\s*(Sign in|Log in)\\s*$/i', 'a |text=/^\\s*(Sign in|Log in)\\s*$/i'],
    limitBanner: ['[class*="banner"] |text=/limit|reached|quota/i', '[role="alert"] |text=/limit|reached|quota/i'],
    // The research has only generic `[role="alert"]` scanning; the simulator's card matches it.
    errorCard: ['[role="alert"] |text=/something went wrong|an error occurred/i'],
    // A real refusal reads like an answer; the simulator marks its refusals beside the text.
    refusal: ['[data-testid="answer-refusal-notice"]'],
    challenge: ['#challenge-form', '#challenge-running', 'iframe[src*="challenges.cloudflare.com"]'],
  },
  // The simulator's banner names a time; a real one that does not gives the default cooldown.
  parseLimitReset: parseClockTime,
};
