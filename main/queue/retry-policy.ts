import type { AgentFailureKind, SentPrompt } from '../core/agent.js';
import type { JobFailureCode } from '../core/errors.js';
import type { AttemptOutcome, FailureContext } from '../core/jobs.js';

/** How an attempt that did not succeed is recorded (decisions.md `details.attempts`). */
export function attemptRecordFor(kind: AgentFailureKind): { outcome: AttemptOutcome; errorCode: string } {
  switch (kind) {
    case 'rejected':
      return { outcome: 'failed', errorCode: 'PROMPT_REJECTED' };
    case 'provider_error':
      return { outcome: 'failed', errorCode: 'PROVIDER_ERROR' };
    case 'rate_limited':
      return { outcome: 'failed', errorCode: 'PROVIDER_RATE_LIMITED' };
    case 'logged_out':
      return { outcome: 'failed', errorCode: 'LOGIN_REQUIRED' };
    case 'challenge':
      return { outcome: 'failed', errorCode: 'CHALLENGE' };
    case 'timed_out':
      return { outcome: 'timed_out', errorCode: 'ATTEMPT_TIMEOUT' };
    case 'agent_lost':
      return { outcome: 'agent_lost', errorCode: 'AGENT_LOST' };
    case 'site_changed':
      return { outcome: 'failed', errorCode: 'PROVIDER_UI_CHANGED' };
    case 'not_text':
      return { outcome: 'failed', errorCode: 'ANSWER_NOT_TEXT' };
    case 'variant_unavailable':
      return { outcome: 'failed', errorCode: 'VARIANT_UNAVAILABLE' };
    case 'attachment_failed':
      return { outcome: 'failed', errorCode: 'ATTACHMENT_FAILED' };
  }
}

export type RetryDecision = { retry: true } | { retry: false; code: JobFailureCode; message: string };

/** How an attempt ends whose prompt went but whose answer was not found (`detail` says why): never tried again. */
export const NOT_COLLECTED = { outcome: 'timed_out', errorCode: 'ANSWER_NOT_COLLECTED' } as const;

/**
 * How an attempt ends that a clean stop cut before its prompt went (`detail` says so): the
 * job goes back to the queue without spending an attempt, as nothing of it reached the page.
 */
export const SERVICE_STOPPED = { outcome: 'agent_lost', errorCode: 'SERVICE_STOPPED' } as const;

/**
 * What an attempt whose time ran out becomes (decisions.md, "Models and modes"):
 * - `retry`: it ends timed out, and the job is tried again while attempts remain. So for
 *   every variant but the long-thinking ones, and for a long one's attempt cut before its
 *   prompt went (trying again sends it for the first time).
 * - `collect`: a long-thinking variant's prompt went and the page gave its conversation an
 *   address: the page is left answering, then the conversation is reopened once to collect
 *   an answer that finished after the cut; none found ends the job TIMEOUT (NOT_COLLECTED).
 * - `not_collected`: its prompt went, but there is no address to reopen: TIMEOUT at once.
 * A long-thinking variant's prompt is never sent from the start again.
 */
export function whenTimeRunsOut(longVariant: boolean, sent: SentPrompt | null): 'retry' | 'collect' | 'not_collected' {
  if (!longVariant || !sent) return 'retry';
  return sent.conversation ? 'collect' : 'not_collected';
}

/** What an attempt may end with without spending the job's attempts: its account's condition, or the service's stop. */
const UNSPENT = new Set(['PROVIDER_RATE_LIMITED', 'VARIANT_UNAVAILABLE', SERVICE_STOPPED.errorCode]);

/**
 * Decides what follows a failed attempt, given the error codes of every ended attempt of
 * the job so far (the latest included). A refusal, an answer that is not text, and a sent
 * prompt whose answer was not found (NOT_COLLECTED) are final at once. A usage-limit banner is
 * the account's condition, not the job's: the job goes back to wait for another agent or
 * for the cooldown, without spending its attempt budget. So is a variant the agent's account
 * does not offer, while another agent may offer it; when none may, the job ends with it.
 * A clean stop that cut an attempt before its prompt went sends the job back without
 * spending one either. Everything else spends one.
 */
export function decideAfterFailure(attemptErrorCodes: readonly string[], maxAttempts: number, context: FailureContext = {}): RetryDecision {
  const latest = attemptErrorCodes[attemptErrorCodes.length - 1];
  if (latest === 'PROMPT_REJECTED') {
    return { retry: false, code: 'PROMPT_REJECTED', message: 'The provider refused the prompt.' };
  }
  if (latest === NOT_COLLECTED.errorCode) {
    return { retry: false, code: 'TIMEOUT', message: `The answer was not collected, and its prompt is not sent again: ${context.detail ?? 'no answer was found'}` };
  }
  if (latest === SERVICE_STOPPED.errorCode) return { retry: true };
  if (latest === 'ANSWER_NOT_TEXT') {
    // The prompt was answered, only not in words: sent again, it would make another file.
    return { retry: false, code: 'ANSWER_NOT_TEXT', message: context.detail ?? 'The provider answered with something other than text.' };
  }
  if (latest === 'ATTACHMENT_FAILED') {
    // Nothing was sent; the page would refuse the same file again, and every upload counts against the account's quota.
    return { retry: false, code: 'ATTACHMENT_FAILED', message: context.detail ?? 'The page did not take one of the files.' };
  }
  if (latest === 'VARIANT_UNAVAILABLE') {
    // Nothing was sent, and the account is fine: another agent that may offer the variant tries, without spending an attempt.
    if (context.retryElsewhere) return { retry: true };
    return { retry: false, code: 'VARIANT_UNAVAILABLE', message: context.detail ?? 'No agent of the provider offers the variant.' };
  }
  const spent = attemptErrorCodes.filter((c) => !UNSPENT.has(c));
  const siteChangedOnly = spent.every((c) => c === 'PROVIDER_UI_CHANGED');
  if (spent.length < maxAttempts && (latest !== 'PROVIDER_UI_CHANGED' || context.retryElsewhere !== false)) return { retry: true };
  if (siteChangedOnly) {
    const what = context.detail ?? "A control the agent needs could not be found on the provider's page.";
    return { retry: false, code: 'PROVIDER_UI_CHANGED', message: `${what} (${spent.length === 1 ? 'no other agent could try' : `on all ${spent.length} attempts`})` };
  }
  if (spent.length < maxAttempts) {
    return { retry: false, code: 'JOB_FAILED', message: `${context.detail ?? "The provider's page changed."} No other agent could try.` };
  }
  if (spent.every((c) => c === 'PROVIDER_ERROR')) {
    return { retry: false, code: 'PROVIDER_ERROR', message: `The provider showed an error on all ${spent.length} attempts.` };
  }
  if (spent.every((c) => c === 'LOGIN_REQUIRED')) {
    return { retry: false, code: 'LOGIN_REQUIRED', message: 'Every agent that tried was logged out; log in again from the dashboard.' };
  }
  return { retry: false, code: 'JOB_FAILED', message: `All ${spent.length} attempts failed.` };
}
