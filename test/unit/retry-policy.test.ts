import { describe, expect, it } from 'vitest';
import { attemptRecordFor, decideAfterFailure, NOT_COLLECTED, SERVICE_STOPPED, whenTimeRunsOut } from '../../main/queue/retry-policy.js';

describe('retry policy', () => {
  it('never retries a refusal', () => {
    expect(decideAfterFailure(['PROMPT_REJECTED'], 3)).toMatchObject({ retry: false, code: 'PROMPT_REJECTED' });
  });

  it('never retries an answer that is not text, and says what it was', () => {
    const detail = 'Qwen answered with a file ("report.pdf"), not text.';
    expect(decideAfterFailure(['ANSWER_NOT_TEXT'], 3, { detail })).toEqual({ retry: false, code: 'ANSWER_NOT_TEXT', message: detail });
    expect(attemptRecordFor('not_text')).toEqual({ outcome: 'failed', errorCode: 'ANSWER_NOT_TEXT' });
  });

  it('ends a job at once when the page refused a file or did not show it attached: nothing was sent, and the same file would be refused again', () => {
    const detail = 'Claude refused report.pdf: "File too large"';
    expect(attemptRecordFor('attachment_failed')).toEqual({ outcome: 'failed', errorCode: 'ATTACHMENT_FAILED' });
    expect(decideAfterFailure(['ATTACHMENT_FAILED'], 3, { detail })).toEqual({ retry: false, code: 'ATTACHMENT_FAILED', message: detail });
  });

  it('never sends a long-thinking variant’s prompt again once it went: its answer is collected, or the job ends TIMEOUT', () => {
    const sent = { conversation: 'https://chatgpt.com/c/1', turnsBefore: 0 };
    expect(whenTimeRunsOut(true, sent)).toBe('collect');
    expect(whenTimeRunsOut(true, { ...sent, conversation: null })).toBe('not_collected');
    // Cut before its prompt went: trying again sends it for the first time.
    expect(whenTimeRunsOut(true, null)).toBe('retry');
    // Any other variant's attempt is tried again, sent or not.
    expect(whenTimeRunsOut(false, sent)).toBe('retry');
    expect(whenTimeRunsOut(false, null)).toBe('retry');

    const detail = 'the page showed no finished answer 120 s after reopening';
    expect(decideAfterFailure([NOT_COLLECTED.errorCode], 3, { detail })).toEqual({
      retry: false,
      code: 'TIMEOUT',
      message: `The answer was not collected, and its prompt is not sent again: ${detail}`,
    });
    // Not even with attempts and other agents to spare.
    expect(decideAfterFailure(['AGENT_LOST', NOT_COLLECTED.errorCode], 5, { retryElsewhere: true })).toMatchObject({ retry: false, code: 'TIMEOUT' });
  });

  it('retries transient failures until the attempts are used up', () => {
    expect(decideAfterFailure(['AGENT_LOST'], 3)).toEqual({ retry: true });
    expect(decideAfterFailure(['AGENT_LOST', 'ATTEMPT_TIMEOUT'], 3)).toEqual({ retry: true });
    expect(decideAfterFailure(['AGENT_LOST', 'ATTEMPT_TIMEOUT', 'PROVIDER_ERROR'], 3)).toMatchObject({
      retry: false,
      code: 'JOB_FAILED',
    });
  });

  it('names the specific code when every attempt failed the same way', () => {
    expect(decideAfterFailure(['PROVIDER_ERROR', 'PROVIDER_ERROR', 'PROVIDER_ERROR'], 3)).toMatchObject({ code: 'PROVIDER_ERROR' });
    expect(decideAfterFailure(['LOGIN_REQUIRED', 'LOGIN_REQUIRED', 'LOGIN_REQUIRED'], 3)).toMatchObject({ code: 'LOGIN_REQUIRED' });
  });

  it('does not spend the budget on an attempt a clean stop cut before its prompt went', () => {
    expect(decideAfterFailure(['AGENT_LOST', 'AGENT_LOST', SERVICE_STOPPED.errorCode], 2)).toEqual({ retry: true });
    expect(decideAfterFailure([SERVICE_STOPPED.errorCode, SERVICE_STOPPED.errorCode, 'AGENT_LOST'], 2)).toEqual({ retry: true });
  });

  it('does not spend the budget on usage-limit banners', () => {
    const codes = ['PROVIDER_RATE_LIMITED', 'PROVIDER_RATE_LIMITED', 'PROVIDER_RATE_LIMITED', 'PROVIDER_ERROR'];
    expect(decideAfterFailure(codes, 3)).toEqual({ retry: true });
  });

  it('tries a refused variant elsewhere without spending the budget, and ends with it when no other agent may offer it', () => {
    const detail = 'ChatGPT: Pro ("pro") is not offered; nothing was sent. Variants offered: instant.';
    expect(decideAfterFailure(['AGENT_LOST', 'AGENT_LOST', 'VARIANT_UNAVAILABLE'], 3, { detail, retryElsewhere: true })).toEqual({ retry: true });
    expect(decideAfterFailure(['VARIANT_UNAVAILABLE', 'VARIANT_UNAVAILABLE', 'AGENT_LOST'], 3)).toEqual({ retry: true });
    expect(decideAfterFailure(['VARIANT_UNAVAILABLE'], 3, { detail, retryElsewhere: false })).toEqual({ retry: false, code: 'VARIANT_UNAVAILABLE', message: detail });
    expect(attemptRecordFor('variant_unavailable')).toEqual({ outcome: 'failed', errorCode: 'VARIANT_UNAVAILABLE' });
  });

  it('records each failure kind with its outcome', () => {
    expect(attemptRecordFor('timed_out')).toEqual({ outcome: 'timed_out', errorCode: 'ATTEMPT_TIMEOUT' });
    expect(attemptRecordFor('agent_lost')).toEqual({ outcome: 'agent_lost', errorCode: 'AGENT_LOST' });
    expect(attemptRecordFor('rejected')).toEqual({ outcome: 'failed', errorCode: 'PROMPT_REJECTED' });
    expect(attemptRecordFor('logged_out')).toEqual({ outcome: 'failed', errorCode: 'LOGIN_REQUIRED' });
  });
});
