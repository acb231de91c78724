/** The job moves' planner, with no database: rows in, writes and the event out. */
import { describe, expect, it } from 'vitest';
import type { NewAttachment } from '../../main/core/attachments.js';
import type { AttemptEnd, AttemptRow, JobRow, NewJob } from '../../main/core/jobs.js';
import {
  deliveryFor,
  MOVED_COLUMNS,
  newJobRow,
  planAgentLost,
  planAttemptEnd,
  planCancel,
  planDispatch,
  planExpiry,
} from '../../main/queue/job-moves.js';
import { IllegalTransition } from '../../main/queue/state-machine.js';
import { newJob, T0 } from '../support/new-job.js';

const claim = (job: JobRow, agentId = 'agt_a', provider = 'chatgpt') => ({ jobId: job.id, agentId, provider });
const answer: AttemptEnd = { outcome: 'succeeded', response: '4', conversationRef: 'cv_1', conversationAddress: 'https://chat.example/c/cv_1', modelUsed: 'gpt-5-5' };
const providerError: AttemptEnd = { outcome: 'failed', errorCode: 'PROVIDER_ERROR', detail: 'Something went wrong' };

const queued = (overrides: Partial<NewJob> = {}) => newJobRow(newJob(overrides));

/** A job as a store holds it after its dispatches: the row and its attempts, the last one open. */
function running(overrides: Partial<NewJob> = {}, starts: number[] = [T0 + 1000]): { job: JobRow; attempts: AttemptRow[] } {
  let job = queued(overrides);
  const attempts: AttemptRow[] = [];
  for (const [i, at] of starts.entries()) {
    if (i > 0) {
      const lost = planAgentLost(job, attempts, at)!;
      job = lost.event.job;
      attempts[i - 1] = { ...attempts[i - 1]!, ...lost.ends };
    }
    const move = planDispatch(job, claim(job, `agt_${i}`), at);
    job = move.event.job;
    attempts.push({ ...move.event.start!, ended_at: null, outcome: null, error_code: null, detail: null, sent_conversation: null, sent_turns_before: null });
  }
  return { job, attempts };
}

describe('the job moves planner', () => {
  it('makes the row of a submission: queued, nothing run, Profile F when no account is given', () => {
    const job = newJob({ priority: 3 });
    const { account_id: _none, ...withoutAccount } = job;
    const unset = ['queue_ms', 'agent_id', 'provider', 'response', 'conversation_ref', 'error_code', 'error_message', 'finished_at', 'content_pruned_at', 'variant', 'model_used'];
    expect(newJobRow(withoutAccount)).toEqual({
      ...withoutAccount,
      ...Object.fromEntries(unset.map((column) => [column, null])),
      status: 'queued',
      attempts: 0,
      run_ms: 0,
      account_id: null,
      attachments: [],
    });
  });

  it("describes a submission's files on its row, without their bytes", () => {
    const file = { filename: 'a.txt', media_type: 'text/plain', bytes: 2, sha256: 'ab'.repeat(32) };
    const sent: NewAttachment = { ...file, data: Buffer.from('hi') };
    expect(newJobRow(newJob(), [sent]).attachments).toEqual([file]);
  });

  describe('dispatch', () => {
    it('starts the next attempt on the claimed agent and counts the first wait only', () => {
      const job = queued();
      const first = planDispatch(job, claim(job, 'agt_b', 'claude'), T0 + 500);
      expect(first.set).toEqual({ status: 'dispatched', attempts: 1, agent_id: 'agt_b', provider: 'claude', queue_ms: 500 });
      expect(first.event).toMatchObject({ from: 'queued', start: { job_id: job.id, attempt: 1, agent_id: 'agt_b', provider: 'claude', started_at: T0 + 500 } });
      expect([first.ends, first.conversation, first.delivery]).toEqual([undefined, undefined, undefined]);

      const { job: again, attempts } = running({}, [T0 + 500, T0 + 9000]);
      expect(again).toMatchObject({ attempts: 2, queue_ms: 500 });
      expect(attempts.map((a) => [a.attempt, a.ended_at])).toEqual([
        [1, T0 + 9000],
        [2, null],
      ]);
    });

    it('refuses a job that is not queued', () => {
      const { job } = running();
      expect(() => planDispatch(job, claim(job), T0 + 2000)).toThrow(IllegalTransition);
    });
  });

  describe('the end of an attempt', () => {
    it('an answer: the job succeeds with its run time, the attempt closes, the conversation and the delivery are written', () => {
      const { job, attempts } = running({ callback_url: 'https://hooks.example:8443/done?x=1', account_id: 'acct_1' });
      const move = planAttemptEnd(job, attempts, 1, answer, T0 + 4000)!;
      expect(move.set).toEqual({ status: 'succeeded', response: '4', conversation_ref: 'cv_1', model_used: 'gpt-5-5', finished_at: T0 + 4000, run_ms: 3000 });
      expect(move.event).toEqual({ job: move.event.job, from: 'dispatched' });
      expect(move.ends).toEqual({ job_id: job.id, attempt: 1, ended_at: T0 + 4000, outcome: 'succeeded', error_code: null, detail: null });
      expect(move.conversation).toEqual({
        id: 'cv_1',
        agent_id: 'agt_0',
        provider: 'chatgpt',
        address: 'https://chat.example/c/cv_1',
        created_at: T0 + 4000,
        updated_at: T0 + 4000,
        account_id: 'acct_1',
      });
      expect(move.delivery).toEqual({ job_id: job.id, origin: 'https://hooks.example:8443', account_id: 'acct_1', due_at: T0 + 4000 });
    });

    it('drops a late result: another attempt than the open one, no open attempt, or a job no longer dispatched', () => {
      const { job, attempts } = running();
      expect(planAttemptEnd(job, attempts, 2, answer, T0 + 2000)).toBeNull();
      const cancelled = planCancel(job, attempts, T0 + 2000)!;
      expect(planAttemptEnd(cancelled.event.job, [{ ...attempts[0]!, ...cancelled.ends }], 1, answer, T0 + 3000)).toBeNull();
      expect(planAttemptEnd({ ...job, status: 'queued' }, attempts, 1, answer, T0 + 3000)).toBeNull();
    });

    it('a failure with attempts left: back to the queue, the attempt closed with what the agent said, no delivery', () => {
      const { job, attempts } = running({ callback_url: 'https://hooks.example/f' });
      const move = planAttemptEnd(job, attempts, 1, providerError, T0 + 3000)!;
      expect(move.set).toEqual({ status: 'queued', run_ms: 2000 });
      expect(move.ends).toEqual({ job_id: job.id, attempt: 1, ended_at: T0 + 3000, outcome: 'failed', error_code: 'PROVIDER_ERROR', detail: 'Something went wrong' });
      expect([move.conversation, move.delivery]).toEqual([undefined, undefined]);
    });

    it("the last attempt's failure fails the job with the policy's code, counting the attempts before it", () => {
      const { job, attempts } = running({ max_attempts: 2, callback_url: 'http://127.0.0.1:9/hook' }, [T0 + 1000, T0 + 3000]);
      // The first attempt was lost (AGENT_LOST), the second shows an error: not all the same.
      const move = planAttemptEnd(job, attempts, 2, providerError, T0 + 4000)!;
      expect(move.set).toEqual({
        status: 'failed',
        error_code: 'JOB_FAILED',
        error_message: 'All 2 attempts failed.',
        finished_at: T0 + 4000,
        run_ms: job.run_ms + 1000,
      });
      expect(move.delivery).toEqual({ job_id: job.id, origin: 'http://127.0.0.1:9', account_id: '', due_at: T0 + 4000 });
    });

    it('hands the failure context to the retry policy: a changed page with no other agent fails at once', () => {
      const { job, attempts } = running();
      const siteChanged: AttemptEnd = { outcome: 'failed', errorCode: 'PROVIDER_UI_CHANGED', detail: 'No send button.', retryElsewhere: false };
      expect(planAttemptEnd(job, attempts, 1, siteChanged, T0 + 2000)!.event.job).toMatchObject({
        status: 'failed',
        error_code: 'PROVIDER_UI_CHANGED',
        error_message: 'No send button. (no other agent could try)',
      });
    });

    it('adds no negative run time when the clock went back', () => {
      const { job, attempts } = running({}, [T0 + 5000]);
      expect(planAttemptEnd(job, attempts, 1, answer, T0 + 4000)!.event.job.run_ms).toBe(0);
    });
  });

  describe('cancel and expiry', () => {
    it('cancels a queued job with its delivery, and a running one with its attempt closed as cancelled', () => {
      const waiting = queued({ callback_url: 'https://hooks.example/c' });
      const early = planCancel(waiting, [], T0 + 10)!;
      expect(early.set).toEqual({ status: 'cancelled', error_code: null, error_message: null, finished_at: T0 + 10 });
      expect([early.ends, early.delivery?.origin]).toEqual([undefined, 'https://hooks.example']);

      const { job, attempts } = running();
      const late = planCancel(job, attempts, T0 + 1500)!;
      expect(late.set).toEqual({ status: 'cancelled', error_code: null, error_message: null, finished_at: T0 + 1500, run_ms: 500 });
      expect(late.ends).toMatchObject({ outcome: 'cancelled', error_code: 'CANCELLED', ended_at: T0 + 1500 });
      expect(late.delivery).toBeUndefined();
    });

    it('leaves a final job as it is', () => {
      const { job, attempts } = running();
      const done = planAttemptEnd(job, attempts, 1, answer, T0 + 2000)!;
      expect(planCancel(done.event.job, [{ ...attempts[0]!, ...done.ends }], T0 + 3000)).toBeUndefined();
    });

    it('expires a queued or running job with JOB_TIMEOUT, a running attempt ending DEADLINE_EXCEEDED', () => {
      const waiting = queued();
      expect(planExpiry(waiting, [], T0 + 6000).set).toEqual({
        status: 'expired',
        error_code: 'JOB_TIMEOUT',
        error_message: 'The job deadline passed before it could finish.',
        finished_at: T0 + 6000,
      });
      const { job, attempts } = running();
      expect(planExpiry(job, attempts, T0 + 6000)).toMatchObject({
        event: { from: 'dispatched', job: { status: 'expired', run_ms: 5000 } },
        ends: { outcome: 'timed_out', error_code: 'DEADLINE_EXCEEDED' },
      });
    });
  });

  describe('a lost agent', () => {
    it('ends the open attempt agent_lost: back to the queue, or failed when attempts are used up', () => {
      const { job, attempts } = running();
      const back = planAgentLost(job, attempts, T0 + 2000)!;
      expect(back.set).toEqual({ status: 'queued', run_ms: 1000 });
      expect(back.ends).toMatchObject({ outcome: 'agent_lost', error_code: 'AGENT_LOST' });
      const last = running({ max_attempts: 1, callback_url: 'https://hooks.example/r' });
      expect(planAgentLost(last.job, last.attempts, T0 + 2000)).toMatchObject({
        event: { job: { status: 'failed', error_code: 'JOB_FAILED' } },
        delivery: { origin: 'https://hooks.example' },
      });
    });

    it('puts a dispatched job with no open attempt back in the queue, closing nothing', () => {
      const { job } = running();
      const move = planAgentLost(job, [], T0 + 2000)!;
      expect(move.set).toEqual({ status: 'queued' });
      expect(move.ends).toBeUndefined();
    });

    it('leaves a job whose prompt went to a conversation with an address dispatched, for its agent to collect, lost or stopped', () => {
      const { job, attempts } = running();
      const sent = [{ ...attempts[0]!, sent_conversation: 'https://chat.example/c/1', sent_turns_before: 2 }];
      expect(planAgentLost(job, sent, T0 + 2000)).toBeUndefined();
      expect(planAgentLost(job, sent, T0 + 2000, 'stopped')).toBeUndefined();
    });

    it('never sends again a prompt that went with no address to reopen: the job fails, its answer not collected', () => {
      const { job, attempts } = running({ max_attempts: 3 });
      const sent = [{ ...attempts[0]!, sent_turns_before: 0 }];
      expect(planAgentLost(job, sent, T0 + 2000, 'stopped')).toMatchObject({
        event: { job: { status: 'failed', error_code: 'TIMEOUT', error_message: expect.stringMatching(/not sent again: the prompt went, but the service stopped before/) } },
        ends: { outcome: 'timed_out', error_code: 'ANSWER_NOT_COLLECTED' },
      });
    });

    it('puts back a job a clean stop cut before its prompt went, spending no attempt', () => {
      const { job, attempts } = running({ max_attempts: 1 });
      const back = planAgentLost(job, attempts, T0 + 2000, 'stopped')!;
      expect(back.set).toEqual({ status: 'queued', run_ms: 1000 });
      expect(back.ends).toMatchObject({ outcome: 'agent_lost', error_code: 'SERVICE_STOPPED', detail: expect.stringMatching(/^service stopped before the prompt went/) });
      // The same loss from a crash spends the job's only attempt.
      expect(planAgentLost(job, attempts, T0 + 2000)).toMatchObject({ event: { job: { status: 'failed' } } });
    });
  });

  it('changes only the columns a move may change, in every move', () => {
    const { job, attempts } = running({ callback_url: 'https://hooks.example/x', account_id: 'acct_1' });
    const waiting = queued({ callback_url: 'https://hooks.example/x' });
    const moves = [
      planDispatch(waiting, claim(waiting), T0 + 1),
      planAttemptEnd(job, attempts, 1, answer, T0 + 2000)!,
      planAttemptEnd(job, attempts, 1, providerError, T0 + 2000)!,
      planCancel(job, attempts, T0 + 2000)!,
      planExpiry(waiting, [], T0 + 2000),
      planAgentLost(job, attempts, T0 + 2000)!,
      planAgentLost(job, attempts, T0 + 2000, 'stopped')!,
    ];
    for (const move of moves) {
      const before = move.event.from === 'queued' ? waiting : job;
      for (const column of Object.keys(move.set)) expect(MOVED_COLUMNS).toContain(column);
      // The row published is the row written: the job as it was, with the columns set.
      expect(move.event.job).toEqual({ ...before, ...move.set });
    }
  });

  it('delivers to the origin of the callback, for the account or none', () => {
    expect(deliveryFor({ id: 'job_1', callback_url: null, account_id: 'acct_1' }, T0)).toBeUndefined();
    expect(deliveryFor({ id: 'job_1', callback_url: 'https://a.example/p/q', account_id: null }, T0)).toEqual({ job_id: 'job_1', origin: 'https://a.example', account_id: '', due_at: T0 });
  });
});
