import { describe, expect, it } from 'vitest';
import { PROVIDER_SITES } from '../../agents/providers/index.js';
import { limitLiftsAt } from '../../agents/providers/limit-reset.js';

const { gemini, perplexity } = PROVIDER_SITES;

describe('Gemini addresses', () => {
  it('takes a conversation id from /app/<id> and the spark route, not the new-chat page', () => {
    expect(gemini.conversationPath.test('/app/1a2b3c4d5e6f7a8b')).toBe(true);
    expect(gemini.conversationPath.test('/spark/chat/c_9f8E-7d')).toBe(true);
    expect(gemini.conversationPath.test('/app')).toBe(false);
    expect(gemini.conversationPath.test('/app/')).toBe(false);
  });

  it("treats Google's sign-in pages and the simulator's /signin as logged out", () => {
    expect(gemini.loginUrl.test('https://accounts.google.com/v3/signin/identifier?continue=https%3A%2F%2Fgemini.google.com%2Fapp')).toBe(true);
    expect(gemini.loginUrl.test('https://accounts.google.com/ServiceLogin?passive=true')).toBe(true);
    expect(gemini.loginUrl.test('http://127.0.0.1:41234/signin')).toBe(true);
    expect(gemini.loginUrl.test('https://gemini.google.com/app/1a2b3c4d5e6f7a8b')).toBe(false);
    expect(gemini.loginUrl.test('http://127.0.0.1:41234/signin-help')).toBe(false);
  });
});

describe('Perplexity addresses', () => {
  it('waits for the final /search/<slug>, not the transient /search/new/…', () => {
    expect(perplexity.conversationPath.test('/search/new/7c1f0e')).toBe(false);
    expect(perplexity.conversationPath.test('/search/new')).toBe(false);
    expect(perplexity.conversationPath.test('/search/what-is-lexical-Xk9Q2b0n.Tq2Jv_5Q')).toBe(true);
    expect(perplexity.conversationPath.test('/search/newton-s-laws-a1b2c3')).toBe(true);
    expect(perplexity.conversationPath.test('/search/%E6%97%A5%E6%9C%AC-a1b2c3')).toBe(true);
    expect(perplexity.conversationPath.test('/search/a/b')).toBe(false);
  });

  it('reads the reset time from a banner that names one, and gives up on one that does not', () => {
    const now = new Date(2026, 0, 5, 21, 0);
    expect(limitLiftsAt(perplexity.limitReset, "You've reached your usage limit. Try again after 9:40 PM.", now)).toBe(new Date(2026, 0, 5, 21, 40).getTime());
    expect(limitLiftsAt(perplexity.limitReset, "You've reached your daily limit of Pro searches.", now)).toBeNull();
  });
});
