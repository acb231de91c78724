/**
 * What every job store must do (the JobStore port), as one suite each implementation runs
 * with a factory of its own: test/store/sqlite-job-store.test.ts, test/store/pg-job-store.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVERY_ACCOUNT, type AttemptEnd, type JobRow, type NewJob, type StoreEvent, type SubmitRequest } from '../../main/core/jobs.js';
import type { JobStore } from '../../main/queue/job-store.js';
import { newJob, T0 } from '../support/new-job.js';

/** A store on an empty database, with what the suite must see beyond the port. */
export interface StoreUnderTest {
  store: JobStore;
  /** The job's webhook outbox row, as the store wrote it. */
  delivery(jobId: string): Promise<{ origin: string; state: string; round: number; next_at: number | null } | undefined>;
  /** Adds an account, disabled at `at` (accounts are another store's rows). */
  addDisabledAccount(id: string, at: number): Promise<void>;
  /** Closes what the factory opened besides the store (the store itself is closed by the suite). */
  close?(): Promise<void>;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;
const TTL = DAY;


const succeeded = (text = '4', ref = 'cv_1', address = `https://chat.example/c/${ref}`): AttemptEnd => ({
  outcome: 'succeeded',
  response: text,
  conversationRef: ref,
  conversationAddress: address,
});
const providerError: AttemptEnd = { outcome: 'failed', errorCode: 'PROVIDER_ERROR', detail: 'Something went wrong' };

export function jobStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`${name} job store (the JobStore contract)`, () => {
    let t: StoreUnderTest;
    let store: JobStore;
    let events: StoreEvent[];

    beforeEach(async () => {
      t = await makeStore();
      store = t.store;
      events = [];
      store.onEvent((e) => events.push(e));
    });
    afterEach(async () => {
      await store.close();
      await t.close?.();
    });

    const submit = async (overrides: Partial<NewJob> = {}, rest: Omit<SubmitRequest, 'job'> = { queuedLimit: 1000 }) => {
      const result = await store.submit({ job: newJob(overrides), ...rest });
      if (result.kind !== 'created') throw new Error(`not created: ${result.kind}`);
      return result.job;
    };
    const claim = (job: JobRow, agentId = 'agt_a', provider = 'chatgpt') => ({ jobId: job.id, agentId, provider });
    const running = async (overrides: Partial<NewJob> = {}, now = T0 + 1000) => {
      const job = await submit(overrides);
      const [dispatched] = await store.dispatch([claim(job)], now);
      return dispatched!;
    };

    describe('submit', () => {
      it('creates a queued job with the row as given, and tells listeners after the commit', async () => {
        const job = await submit({ priority: 5, callback_url: 'https://hooks.example:8443/x', account_id: 'acct_1' });
        expect(job).toMatchObject({ status: 'queued', priority: 5, attempts: 0, run_ms: 0, queue_ms: null, agent_id: null, finished_at: null, account_id: 'acct_1' });
        expect(await store.get(job.id)).toEqual(job);
        expect(events).toEqual([{ job, from: null }]);
      });

      it('finds the job of a repeated Idempotency-Key with the same request, and writes nothing', async () => {
        const key = { key: 'k1', hash: 'h1', ttlMs: TTL, onOtherHash: 'conflict' as const };
        const first = await submit({}, { idempotency: key, queuedLimit: 1000 });
        const again = await store.submit({ job: newJob({ created_at: T0 + 5000 }), idempotency: key, queuedLimit: 1000 });
        expect(again).toEqual({ kind: 'found', job: first });
        expect(await store.queuedCount(null)).toBe(1);
        expect(events).toHaveLength(1);
      });

      it('calls the same key with another request a conflict, and writes nothing', async () => {
        await submit({}, { idempotency: { key: 'k1', hash: 'h1', ttlMs: TTL, onOtherHash: 'conflict' }, queuedLimit: 1000 });
        const other = await store.submit({ job: newJob(), idempotency: { key: 'k1', hash: 'h2', ttlMs: TTL, onOtherHash: 'conflict' }, queuedLimit: 1000 });
        expect(other).toEqual({ kind: 'conflict' });
        expect(await store.queuedCount(null)).toBe(1);
      });

      it("replaces an implicit key's entry for another request, and refreshes an entry it finds", async () => {
        const implicit = (hash: string, ttlMs = 60_000) => ({ key: 'auto', hash, ttlMs, onOtherHash: 'replace' as const });
        const a = await submit({}, { idempotency: implicit('h1'), queuedLimit: 1000 });
        const b = await submit({ created_at: T0 + 1000 }, { idempotency: implicit('h2'), queuedLimit: 1000 });
        expect(b.id).not.toBe(a.id);
        // Found at +50 s, the entry is refreshed: still found at +100 s, past a's own 60 s window.
        expect(await store.submit({ job: newJob({ created_at: T0 + 51_000 }), idempotency: implicit('h2'), queuedLimit: 1000 })).toEqual({ kind: 'found', job: b });
        expect(await store.submit({ job: newJob({ created_at: T0 + 101_000 }), idempotency: implicit('h2'), queuedLimit: 1000 })).toEqual({ kind: 'found', job: b });
      });

      it('makes a new job when the entry is older than the TTL, or its job was deleted', async () => {
        const key = (ttlMs: number) => ({ key: 'k1', hash: 'h1', ttlMs, onOtherHash: 'conflict' as const });
        const first = await submit({}, { idempotency: key(TTL), queuedLimit: 1000 });
        const late = await submit({ created_at: T0 + TTL }, { idempotency: key(TTL), queuedLimit: 1000 });
        expect(late.id).not.toBe(first.id);
        await store.cancel(late.id, T0 + TTL + 1);
        expect(await store.delete(late.id)).toEqual({ deleted: true });
        const after = await submit({ created_at: T0 + TTL + 2 }, { idempotency: key(TTL), queuedLimit: 1000 });
        expect([first.id, late.id]).not.toContain(after.id);
        expect(await store.submit({ job: newJob({ created_at: T0 + TTL + 3 }), idempotency: key(TTL), queuedLimit: 1000 })).toEqual({ kind: 'found', job: after });
      });

      it('rejects a submission that fails (an id already taken), writing nothing, not even its key', async () => {
        const job = await submit();
        events.length = 0;
        const key = { key: 'k2', hash: 'h', ttlMs: TTL, onOtherHash: 'conflict' as const };
        await expect(store.submit({ job: newJob({ id: job.id, prompt: 'other' }), idempotency: key, queuedLimit: 1000 })).rejects.toThrow();
        expect(await store.get(job.id)).toEqual(job);
        expect(events).toEqual([]);
        expect((await store.submit({ job: newJob(), idempotency: key, queuedLimit: 1000 })).kind).toBe('created');
      });

      it("refuses a job past the account's queued limit and writes nothing, not even its key", async () => {
        for (let i = 0; i < 3; i++) await submit({ account_id: 'acct_1' }, { queuedLimit: 3 });
        const key = { key: 'acct_1 k', hash: 'h', ttlMs: TTL, onOtherHash: 'conflict' as const };
        expect(await store.submit({ job: newJob({ account_id: 'acct_1' }), idempotency: key, queuedLimit: 3 })).toEqual({ kind: 'queue_full' });
        expect(await store.queuedCount('acct_1')).toBe(3);
        // Another account's queue, and Profile F's, are their own.
        await submit({ account_id: 'acct_2' }, { queuedLimit: 3 });
        await submit({ account_id: null }, { queuedLimit: 3 });
        // A dispatched job no longer counts; the refused key was never recorded.
        const [queued] = await store.queuedInOrder();
        await store.dispatch([{ jobId: queued!.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 1);
        expect((await store.submit({ job: newJob({ account_id: 'acct_1' }), idempotency: key, queuedLimit: 3 })).kind).toBe('created');
        expect(events.filter((e) => e.from === null)).toHaveLength(6);
      });

      it('with refuseNew, still finds the key\'s job and still says the queue is full, and otherwise writes nothing', async () => {
        const key = (k: string) => ({ key: k, hash: 'h', ttlMs: TTL, onOtherHash: 'conflict' as const });
        const original = await submit({}, { idempotency: key('k3'), queuedLimit: 1000 });
        events.length = 0;
        expect(await store.submit({ job: newJob(), idempotency: key('k3'), queuedLimit: 1000, refuseNew: true })).toEqual({ kind: 'found', job: original });
        expect(await store.submit({ job: newJob(), queuedLimit: 1, refuseNew: true })).toEqual({ kind: 'queue_full' });
        const refused = newJob();
        expect(await store.submit({ job: refused, idempotency: key('k4'), queuedLimit: 1000, refuseNew: true })).toEqual({ kind: 'refused' });
        expect(await store.get(refused.id)).toBeUndefined();
        expect(events).toEqual([]);
        // The refused request's key was not recorded: the same key with another request makes a job, no conflict.
        expect((await store.submit({ job: newJob(), idempotency: { ...key('k4'), hash: 'other' }, queuedLimit: 1000 })).kind).toBe('created');
      });
    });

    describe('dispatch', () => {
      it('orders the queue by priority, then age, then id', async () => {
        const low = await submit({ created_at: T0 });
        const highNew = await submit({ priority: 9, created_at: T0 + 20 });
        const highOld = await submit({ priority: 9, created_at: T0 + 10 });
        const sameTime = await submit({ priority: 9, created_at: T0 + 10 });
        expect((await store.queuedInOrder()).map((j) => j.id)).toEqual([highOld.id, sameTime.id, highNew.id, low.id]);
        expect(await store.queuedInOrder()).toContainEqual({ id: low.id, req_provider: null, req_agent_id: null, conversation_in: null, account_id: null, variant: null });
      });

      it('moves each claimed job to dispatched with a new open attempt, in claim order', async () => {
        const a = await submit();
        const b = await submit({ created_at: T0 + 1 });
        events.length = 0;
        const out = await store.dispatch([claim(b, 'agt_b', 'claude'), claim(a, 'agt_a', 'chatgpt')], T0 + 500);
        expect(out.map((j) => [j.id, j.status, j.agent_id, j.provider, j.attempts])).toEqual([
          [b.id, 'dispatched', 'agt_b', 'claude', 1],
          [a.id, 'dispatched', 'agt_a', 'chatgpt', 1],
        ]);
        expect(out[1]!.queue_ms).toBe(500);
        expect(await store.attempts(a.id)).toEqual([
          {
            ...{ job_id: a.id, attempt: 1, agent_id: 'agt_a', provider: 'chatgpt', started_at: T0 + 500, ended_at: null, outcome: null, error_code: null, detail: null },
            ...{ sent_conversation: null, sent_turns_before: null },
          },
        ]);
        expect(events.map((e) => [e.job.id, e.from, e.job.status])).toEqual([
          [b.id, 'queued', 'dispatched'],
          [a.id, 'queued', 'dispatched'],
        ]);
        // Each event carries the attempt it started, for the hourly window of every instance.
        expect(events.map((e) => e.start)).toEqual([
          { job_id: b.id, attempt: 1, agent_id: 'agt_b', provider: 'claude', started_at: T0 + 500 },
          { job_id: a.id, attempt: 1, agent_id: 'agt_a', provider: 'chatgpt', started_at: T0 + 500 },
        ]);
        expect(await store.queuedInOrder()).toEqual([]);
      });

      it('holds each claim to its agent, provider and global caps: the starts of the hour before now and the claims before it count', async () => {
        const now = T0 + 2 * HOUR;
        const past = async (agentId: string, provider: string, at: number) => store.dispatch([{ jobId: (await submit()).id, agentId, provider }], at);
        await past('agt_a', 'chatgpt', now - HOUR); // an hour old: out of the window
        await past('agt_a', 'chatgpt', now - HOUR + 1);
        await past('agt_b', 'claude', now - 10);
        const q = await Promise.all(Array.from({ length: 6 }, () => submit()));
        events.length = 0;
        const capped = (job: JobRow, agentId: string, provider: string, agent: number | null, prov: number | null, global: number | null) => ({
          ...claim(job, agentId, provider),
          caps: { agent, provider: prov, global },
        });
        const out = await store.dispatch(
          [
            capped(q[0]!, 'agt_a', 'chatgpt', 2, null, null), // agt_a: 1 in the hour, 2 with this one
            capped(q[1]!, 'agt_a', 'chatgpt', 2, null, null), // agt_a full
            capped(q[2]!, 'agt_c', 'chatgpt', null, 3, null), // chatgpt: 2 before, 3 with this one
            capped(q[3]!, 'agt_d', 'chatgpt', null, 3, null), // chatgpt full
            capped(q[4]!, 'agt_b', 'claude', 5, 5, 5), // all: 4 before, 5 with this one
            capped(q[5]!, 'agt_e', 'qwen', null, null, 5), // all full
            claim(q[1]!, 'agt_f', 'qwen'), // no cap: a job skipped for a cap is still there to claim
          ],
          now,
        );
        expect(out.map((j) => [j.id, j.agent_id])).toEqual([
          [q[0]!.id, 'agt_a'],
          [q[2]!.id, 'agt_c'],
          [q[4]!.id, 'agt_b'],
          [q[1]!.id, 'agt_f'],
        ]);
        expect(events.map((e) => e.start?.agent_id)).toEqual(['agt_a', 'agt_c', 'agt_b', 'agt_f']);
        for (const skipped of [q[3]!, q[5]!]) {
          expect((await store.get(skipped.id))!.status).toBe('queued');
          expect(await store.attempts(skipped.id)).toEqual([]);
        }
        // A minute later agt_a's start of an hour and a minute ago has left; agt_a's cap of 2 has room again.
        expect((await store.dispatch([capped(q[3]!, 'agt_a', 'chatgpt', 2, null, null)], now + 1)).map((j) => j.id)).toEqual([q[3]!.id]);
        expect(await store.dispatch([capped(q[5]!, 'agt_a', 'chatgpt', 2, null, null)], now + 2)).toEqual([]);
      });

      it("holds a claim to its variant's cap: the hour's starts of jobs asking for that variant, on any agent, count", async () => {
        const pro = () => submit({ req_provider: 'chatgpt', variant: 'pro' });
        await store.dispatch([claim(await pro(), 'agt_a'), claim(await submit({ req_provider: 'chatgpt', variant: 'thinking' }), 'agt_b'), claim(await submit(), 'agt_c')], T0);
        const capped = async (agentId: string, cap: number) => ({ ...claim(await pro(), agentId), caps: { agent: null, provider: null, global: null, variant: cap }, variant: 'chatgpt/pro' });
        const [fits, full] = [await capped('agt_d', 2), await capped('agt_e', 2)];
        expect((await store.dispatch([fits, full], T0 + 10)).map((j) => j.id)).toEqual([fits.jobId]);
        expect(await store.attemptStartsSince(T0 - 1)).toEqual([
          expect.objectContaining({ agent_id: 'agt_a', variant: 'pro' }),
          expect.objectContaining({ agent_id: 'agt_b', variant: 'thinking' }),
          expect.objectContaining({ agent_id: 'agt_c', variant: null }),
          expect.objectContaining({ agent_id: 'agt_d', variant: 'pro' }),
        ]);
      });

      it('counts nothing against caps of null', async () => {
        for (let i = 0; i < 3; i++) await store.dispatch([claim(await submit(), 'agt_a')], T0 + i);
        const job = await submit();
        const out = await store.dispatch([{ ...claim(job, 'agt_a'), caps: { agent: null, provider: null, global: null } }], T0 + 10);
        expect(out.map((j) => j.id)).toEqual([job.id]);
      });

      it('skips claims whose job is no longer queued, and a job claimed twice in one round', async () => {
        const cancelled = await submit();
        const taken = await submit();
        const free = await submit();
        await store.cancel(cancelled.id, T0 + 1);
        await store.dispatch([claim(taken)], T0 + 2);
        const out = await store.dispatch([claim(cancelled), claim(taken, 'agt_b'), claim(free, 'agt_c'), claim(free, 'agt_d'), { jobId: 'job_none', agentId: 'agt_e', provider: 'qwen' }], T0 + 3);
        expect(out.map((j) => [j.id, j.agent_id])).toEqual([[free.id, 'agt_c']]);
        expect((await store.get(taken.id))!.agent_id).toBe('agt_a');
        expect(await store.attempts(free.id)).toHaveLength(1);
        expect(await store.dispatch([], T0 + 4)).toEqual([]);
      });
    });

    describe('endAttempt', () => {
      it('succeeds: the answer, the conversation, the closed attempt, the run time and the outbox row', async () => {
        const job = await running({ callback_url: 'https://hooks.example/done', account_id: 'acct_1' }, T0 + 1000);
        events.length = 0;
        const moved = await store.endAttempt(job.id, 1, succeeded('4', 'cv_x'), T0 + 4000);
        expect(moved!.from).toBe('dispatched');
        expect(moved!.job).toMatchObject({ status: 'succeeded', response: '4', conversation_ref: 'cv_x', finished_at: T0 + 4000, run_ms: 3000, queue_ms: 1000 });
        expect(await store.get(job.id)).toEqual(moved!.job);
        expect(await store.conversation('cv_x')).toEqual({
          id: 'cv_x', agent_id: 'agt_a', provider: 'chatgpt', address: 'https://chat.example/c/cv_x', created_at: T0 + 4000, updated_at: T0 + 4000, account_id: 'acct_1',
        });
        expect((await store.attempts(job.id))[0]).toMatchObject({ ended_at: T0 + 4000, outcome: 'succeeded', error_code: null });
        expect(await t.delivery(job.id)).toMatchObject({ origin: 'https://hooks.example', state: 'pending', round: 1, next_at: T0 + 4000 });
        expect(events).toEqual([moved]);
      });

      it('keeps the variant asked for from the submission, and the model that answered from the success', async () => {
        const job = await running({ variant: 'thinking' });
        expect(job).toMatchObject({ variant: 'thinking', model_used: null });
        expect((await store.queuedInOrder()).length).toBe(0);
        const moved = await store.endAttempt(job.id, 1, { outcome: 'succeeded', response: '4', conversationRef: 'cv_1', conversationAddress: 'https://chat.example/c/cv_1', modelUsed: 'gpt-5-thinking' }, T0 + 4000);
        expect(moved!.job).toMatchObject({ status: 'succeeded', variant: 'thinking', model_used: 'gpt-5-thinking' });
        expect(await store.get(job.id)).toEqual(moved!.job);
        const plain = await running({ created_at: T0 + 1 });
        expect((await store.endAttempt(plain.id, 1, succeeded('5', 'cv_2'), T0 + 5000))!.job).toMatchObject({ variant: null, model_used: null });
      });

      it('records how an answer came when it is said: one collected by reopening its conversation', async () => {
        const job = await running({ variant: 'pro' });
        const detail = "The answer finished after the attempt's 5 s: collected by reopening its conversation, nothing sent again.";
        expect((await store.endAttempt(job.id, 1, { ...succeeded('4', 'cv_1'), detail }, T0 + 4000))!.job.status).toBe('succeeded');
        expect(await store.attempts(job.id)).toMatchObject([{ outcome: 'succeeded', error_code: null, detail }]);
      });

      it('a continued conversation keeps its row and gets the new address', async () => {
        const first = await running();
        await store.endAttempt(first.id, 1, succeeded('a', 'cv_c'), T0 + 2000);
        const next = await running({ conversation_in: 'cv_c', created_at: T0 + 3000 }, T0 + 3000);
        await store.endAttempt(next.id, 1, succeeded('b', 'cv_c', 'https://chat.example/c/moved'), T0 + 5000);
        expect(await store.conversation('cv_c')).toMatchObject({ address: 'https://chat.example/c/moved', created_at: T0 + 2000, updated_at: T0 + 5000 });
      });

      it('a failure with attempts left puts the job back in the queue; the next dispatch is attempt 2', async () => {
        const job = await running();
        const moved = await store.endAttempt(job.id, 1, providerError, T0 + 3000);
        expect(moved).toMatchObject({ from: 'dispatched', job: { status: 'queued', attempts: 1, finished_at: null } });
        expect((await store.attempts(job.id))[0]).toMatchObject({ outcome: 'failed', error_code: 'PROVIDER_ERROR', detail: 'Something went wrong', ended_at: T0 + 3000 });
        const [again] = await store.dispatch([claim(job, 'agt_b')], T0 + 4000);
        expect(again).toMatchObject({ attempts: 2, agent_id: 'agt_b', queue_ms: 1000 });
        expect((await store.attempts(job.id)).map((a) => [a.attempt, a.agent_id, a.ended_at])).toEqual([
          [1, 'agt_a', T0 + 3000],
          [2, 'agt_b', null],
        ]);
      });

      it('fails the job after its last attempt, with the outbox row', async () => {
        const job = await running({ max_attempts: 2, callback_url: 'http://127.0.0.1:9/hook' });
        await store.endAttempt(job.id, 1, providerError, T0 + 2000);
        await store.dispatch([claim(job)], T0 + 3000);
        const moved = await store.endAttempt(job.id, 2, providerError, T0 + 4000);
        expect(moved!.job).toMatchObject({ status: 'failed', error_code: 'PROVIDER_ERROR', error_message: 'The provider showed an error on all 2 attempts.', finished_at: T0 + 4000 });
        expect(await t.delivery(job.id)).toMatchObject({ origin: 'http://127.0.0.1:9', state: 'pending' });
      });

      it('a refusal is final at once', async () => {
        const job = await running();
        const moved = await store.endAttempt(job.id, 1, { outcome: 'failed', errorCode: 'PROMPT_REJECTED' }, T0 + 2000);
        expect(moved!.job).toMatchObject({ status: 'failed', error_code: 'PROMPT_REJECTED' });
        expect(await t.delivery(job.id)).toBeUndefined(); // no callback_url, no delivery
      });

      it("drops a late result: another attempt's, or one that ended with a cancel", async () => {
        const job = await running();
        expect(await store.endAttempt(job.id, 2, succeeded(), T0 + 2000)).toBeNull();
        await store.cancel(job.id, T0 + 2500);
        events.length = 0;
        expect(await store.endAttempt(job.id, 1, succeeded(), T0 + 3000)).toBeNull();
        expect(await store.get(job.id)).toMatchObject({ status: 'cancelled', response: null });
        expect(events).toEqual([]);
      });
    });

    describe('cancel', () => {
      it('cancels a queued job, with its outbox row', async () => {
        const job = await submit({ callback_url: 'https://hooks.example/c' });
        const moved = await store.cancel(job.id, T0 + 10);
        expect(moved).toMatchObject({ from: 'queued', job: { status: 'cancelled', finished_at: T0 + 10, error_code: null } });
        expect(await store.queuedCount(null)).toBe(0);
        expect(await t.delivery(job.id)).toMatchObject({ state: 'pending' });
        expect(events.at(-1)).toEqual(moved);
      });

      it('cancels a dispatched job and closes its attempt as cancelled', async () => {
        const job = await running({}, T0 + 1000);
        const moved = await store.cancel(job.id, T0 + 1500);
        expect(moved).toMatchObject({ from: 'dispatched', job: { status: 'cancelled', run_ms: 500 } });
        expect((await store.attempts(job.id))[0]).toMatchObject({ outcome: 'cancelled', error_code: 'CANCELLED', ended_at: T0 + 1500 });
      });

      it('returns a final job as it is, and nothing for an unknown one', async () => {
        const job = await running();
        const done = (await store.endAttempt(job.id, 1, succeeded(), T0 + 2000))!.job;
        events.length = 0;
        expect(await store.cancel(job.id, T0 + 3000)).toEqual({ job: done, from: 'succeeded' });
        expect(await store.cancel('job_none', T0 + 3000)).toBeUndefined();
        expect(events).toEqual([]);
      });
    });

    describe('expireDue', () => {
      it('expires live jobs past their deadline, queued or dispatched, and leaves the rest', async () => {
        const queued = await submit({ deadline_at: T0 + 5000, callback_url: 'https://hooks.example/e' });
        const busy = await running({ deadline_at: T0 + 6000 }, T0 + 1000);
        const later = await submit({ deadline_at: T0 + 9000 });
        const done = await running({ deadline_at: T0 + 2000 });
        await store.endAttempt(done.id, 1, succeeded(), T0 + 1500);
        expect(await store.nextDeadline()).toBe(T0 + 5000);
        events.length = 0;
        const moved = await store.expireDue(T0 + 6000);
        expect(moved.map((m) => [m.job.id, m.from, m.job.status, m.job.error_code]).sort()).toEqual(
          [
            [queued.id, 'queued', 'expired', 'JOB_TIMEOUT'],
            [busy.id, 'dispatched', 'expired', 'JOB_TIMEOUT'],
          ].sort(),
        );
        expect((await store.attempts(busy.id))[0]).toMatchObject({ outcome: 'timed_out', error_code: 'DEADLINE_EXCEEDED', ended_at: T0 + 6000 });
        expect(await t.delivery(queued.id)).toMatchObject({ state: 'pending' });
        expect((await store.get(later.id))!.status).toBe('queued');
        expect(await store.nextDeadline()).toBe(T0 + 9000);
        expect(events).toHaveLength(2);
        expect(await store.expireDue(T0 + 6000)).toEqual([]);
      });
    });

    describe('requeueDispatched', () => {
      it('ends open attempts as agent_lost: back to the queue, or failed when attempts are used up', async () => {
        const first = await running({}, T0 + 1000);
        const last = await running({ max_attempts: 1, callback_url: 'https://hooks.example/r' }, T0 + 1000);
        const queued = await submit();
        const moved = await store.requeueDispatched(T0 + 2000);
        expect(moved.map((m) => [m.job.id, m.from, m.job.status]).sort()).toEqual(
          [
            [first.id, 'dispatched', 'queued'],
            [last.id, 'dispatched', 'failed'],
          ].sort(),
        );
        expect((await store.attempts(first.id))[0]).toMatchObject({ outcome: 'agent_lost', error_code: 'AGENT_LOST', ended_at: T0 + 2000 });
        expect(await store.get(last.id)).toMatchObject({ error_code: 'JOB_FAILED', run_ms: 1000 });
        expect(await t.delivery(last.id)).toMatchObject({ state: 'pending' });
        expect((await store.get(queued.id))!.status).toBe('queued');
        expect(await store.requeueDispatched(T0 + 3000)).toEqual([]);
      });

      it('keeps what an open attempt sent, and leaves a job sent to a conversation with an address dispatched, to collect', async () => {
        const toCollect = await running({}, T0 + 1000);
        const noAddress = await running({ callback_url: 'https://hooks.example/n' }, T0 + 1000);
        const unsent = await running({ max_attempts: 1 }, T0 + 1000);
        await store.recordSent(toCollect.id, 1, { conversation: null, turnsBefore: 2 });
        await store.recordSent(toCollect.id, 1, { conversation: 'https://chat.example/c/9', turnsBefore: 2 });
        await store.recordSent(noAddress.id, 1, { conversation: null, turnsBefore: 0 });
        // An attempt closed keeps what it had.
        const done = await running({}, T0 + 1000);
        await store.endAttempt(done.id, 1, succeeded(), T0 + 1500);
        await store.recordSent(done.id, 1, { conversation: 'https://chat.example/c/late', turnsBefore: 0 });
        expect((await store.attempts(done.id))[0]).toMatchObject({ sent_conversation: null, sent_turns_before: null });

        const moved = await store.requeueDispatched(T0 + 2000, 'stopped');
        expect(moved.map((m) => [m.job.id, m.job.status, m.job.error_code]).sort()).toEqual(
          [
            [noAddress.id, 'failed', 'TIMEOUT'],
            [unsent.id, 'queued', null],
          ].sort(),
        );
        expect(await t.delivery(noAddress.id)).toMatchObject({ state: 'pending' });
        expect((await store.attempts(unsent.id))[0]).toMatchObject({ outcome: 'agent_lost', error_code: 'SERVICE_STOPPED', ended_at: T0 + 2000 });
        expect((await store.attempts(noAddress.id))[0]).toMatchObject({ outcome: 'timed_out', error_code: 'ANSWER_NOT_COLLECTED', sent_turns_before: 0 });
        const left = await store.sentUncollected();
        expect(left).toEqual([{ job: await store.get(toCollect.id), attempt: (await store.attempts(toCollect.id))[0] }]);
        expect(left[0]!.job.status).toBe('dispatched');
        expect(left[0]!.attempt).toMatchObject({ ended_at: null, sent_conversation: 'https://chat.example/c/9', sent_turns_before: 2 });
        // A crash's recovery leaves it as well; its agent's collection ends it.
        expect(await store.requeueDispatched(T0 + 3000)).toEqual([]);
        await store.endAttempt(toCollect.id, 1, succeeded(), T0 + 4000);
        expect(await store.sentUncollected()).toEqual([]);
      });
    });

    describe('delete, purge, prune', () => {
      it('refuses to delete a live job, and deletes a final one with its attempts and delivery', async () => {
        const queued = await submit();
        const busy = await running();
        expect(await store.delete(queued.id)).toEqual({ deleted: false, status: 'queued' });
        expect(await store.delete(busy.id)).toEqual({ deleted: false, status: 'dispatched' });
        await store.endAttempt(busy.id, 1, succeeded(), T0 + 2000);
        expect(await store.delete('job_none')).toBeUndefined();
        const final = await running({ callback_url: 'https://hooks.example/d' });
        await store.cancel(final.id, T0 + 3000);
        expect(await t.delivery(final.id)).toBeDefined();
        expect(await store.delete(final.id)).toEqual({ deleted: true });
        expect(await store.get(final.id)).toBeUndefined();
        expect(await store.attempts(final.id)).toEqual([]);
        expect(await t.delivery(final.id)).toBeUndefined();
      });

      it('purges finished jobs oldest first, at most `limit`, never live ones', async () => {
        const ids: string[] = [];
        for (let i = 0; i < 4; i++) {
          const job = await running({ created_at: T0 + i });
          await store.endAttempt(job.id, 1, succeeded(), T0 + 10_000 - i * 1000); // the last made finished first
          ids.push(job.id);
        }
        const live = await submit();
        expect(await store.purgeFinishedBefore(T0 + 9_500, 2)).toBe(2);
        expect((await store.recent(10)).map((j) => j.id).sort()).toEqual([ids[0], ids[1], live.id].sort());
        expect(await store.purgeFinishedBefore(T0 + 100_000, 10)).toBe(2);
        expect(await store.purgeFinishedBefore(T0 + 100_000, 10)).toBe(0);
        expect((await store.get(live.id))!.status).toBe('queued');
      });

      it("prunes the content of an account's finished jobs, oldest first, keeping the rest of the row", async () => {
        const mine = [await running({ account_id: 'acct_1' }), await running({ account_id: 'acct_1' }), await running({ account_id: 'acct_1' })];
        for (const [i, job] of mine.entries()) await store.endAttempt(job.id, 1, succeeded(`answer ${i}`), T0 + 2000 + i);
        const theirs = await running({ account_id: 'acct_2' });
        await store.endAttempt(theirs.id, 1, succeeded(), T0 + 2000);
        const profileF = await running();
        await store.endAttempt(profileF.id, 1, succeeded(), T0 + 2000);
        expect(await store.pruneContent(T0 + 5000, T0 + 9000, 2, 'acct_1')).toBe(2);
        expect(await store.get(mine[0]!.id)).toMatchObject({ prompt: '', response: null, content_pruned_at: T0 + 9000, status: 'succeeded', run_ms: 1000 });
        expect(await store.get(mine[2]!.id)).toMatchObject({ response: 'answer 2', content_pruned_at: null });
        expect(await store.get(theirs.id)).toMatchObject({ content_pruned_at: null });
        expect(await store.pruneContent(T0 + 5000, T0 + 9000, 10)).toBe(1); // Profile F's (account null)
        expect(await store.get(profileF.id)).toMatchObject({ prompt: '', content_pruned_at: T0 + 9000 });
        expect(await store.pruneContent(T0 + 5000, T0 + 9000, 10, 'acct_1')).toBe(1);
      });

      it('drops idempotency entries past 24 hours', async () => {
        const key = { key: 'k', hash: 'h', ttlMs: 10 * DAY, onOtherHash: 'conflict' as const };
        const first = await submit({}, { idempotency: key, queuedLimit: 1000 });
        await store.pruneIdempotency(T0 + DAY - 1);
        expect(await store.submit({ job: newJob(), idempotency: key, queuedLimit: 1000 })).toEqual({ kind: 'found', job: first });
        await store.pruneIdempotency(T0 + DAY);
        expect((await store.submit({ job: newJob(), idempotency: key, queuedLimit: 1000 })).kind).toBe('created');
      });
    });

    describe('reads', () => {
      it('views a job as its caller is shown it: the whole row but the prompt, as it moves and once it is gone', async () => {
        const withoutPrompt = ({ prompt: _prompt, ...view }: JobRow) => view;
        const job = await submit({ prompt: 'x'.repeat(100_000) });
        expect(await store.view(job.id)).toEqual(withoutPrompt((await store.get(job.id))!));
        expect(await store.view(job.id)).not.toHaveProperty('prompt');
        await store.dispatch([claim(job)], T0 + 1000);
        expect(await store.view(job.id)).toMatchObject({ status: 'dispatched', attempts: 1, agent_id: 'agt_a', queue_ms: 1000 });
        await store.endAttempt(job.id, 1, succeeded('the answer'), T0 + 3000);
        const final = await store.view(job.id);
        expect(final).toEqual(withoutPrompt((await store.get(job.id))!));
        expect(final).toMatchObject({ status: 'succeeded', response: 'the answer', run_ms: 2000, finished_at: T0 + 3000 });
        await store.delete(job.id);
        expect(await store.view(job.id)).toBeUndefined();
        expect(await store.view('job_none')).toBeUndefined();
      });

      it("counts each account's queue, its oldest job and a job's place in it", async () => {
        const a1 = await submit({ account_id: 'acct_1', created_at: T0 + 10 });
        const a2 = await submit({ account_id: 'acct_1', created_at: T0 + 20, priority: 1 });
        const b1 = await submit({ account_id: 'acct_2', created_at: T0 + 5 });
        const f1 = await submit({ account_id: null, created_at: T0 + 30 });
        expect(await store.queuedCount('acct_1')).toBe(2);
        expect(await store.queuedCount('acct_2')).toBe(1);
        expect(await store.queuedCount(null)).toBe(1);
        expect(await store.queuedCount(EVERY_ACCOUNT)).toBe(4);
        expect(await store.queuePosition(a2)).toBe(1);
        expect(await store.queuePosition(a1)).toBe(2);
        expect(await store.queuePosition(b1)).toBe(1);
        expect(await store.queuePosition(f1)).toBe(1);
        expect(await store.oldestQueuedAt('acct_1')).toBe(T0 + 10);
        expect(await store.oldestQueuedAt(null)).toBe(T0 + 30);
        expect(await store.oldestQueuedAt(EVERY_ACCOUNT)).toBe(T0 + 5);
        expect(await store.oldestQueuedAt('acct_none')).toBeNull();
        await store.dispatch([claim(a2)], T0 + 40);
        expect(await store.queuePosition(a1)).toBe(1);
        expect(await store.queuedCount('acct_1')).toBe(1);
      });

      it('places a job among the jobs that compete with it for an agent: another provider\'s jobs are not ahead of it', async () => {
        const anyOne = await submit({ created_at: T0 + 1 });
        const gpt = await submit({ req_provider: 'chatgpt', created_at: T0 + 2 });
        const claude = await submit({ req_provider: 'claude', created_at: T0 + 3 });
        const pinnedA = await submit({ req_provider: 'chatgpt', req_agent_id: 'agt_a', created_at: T0 + 4 });
        const pinnedB = await submit({ req_provider: 'chatgpt', req_agent_id: 'agt_b', created_at: T0 + 5 });
        const gpt2 = await submit({ req_provider: 'chatgpt', created_at: T0 + 6 });
        const places = async () => Promise.all([anyOne, gpt, claude, pinnedA, pinnedB, gpt2].map((j) => store.queuePosition(j)));
        // claude: behind the provider-less job only; pinnedB: not behind agt_a's job; gpt2: behind all but claude's.
        expect(await places()).toEqual([1, 2, 2, 3, 3, 5]);
        await store.dispatch([claim(anyOne)], T0 + 10);
        expect(await store.queuePosition(claude)).toBe(1);
        expect(await store.queuePosition(gpt2)).toBe(4);
      });

      it('lists the newest jobs first, attempt starts, starts per account, queued jobs of disabled accounts', async () => {
        const a = await running({ account_id: 'acct_1', created_at: T0 }, T0 + 100);
        const b = await running({ account_id: 'acct_1', created_at: T0 + 1 }, T0 + 3_700_000);
        const c = await running({ account_id: null, created_at: T0 + 2 }, T0 + 3_700_001);
        const off = await submit({ account_id: 'acct_off', created_at: T0 + 3 });
        await t.addDisabledAccount('acct_off', T0 + 5);
        expect((await store.recent(2)).map((j) => j.id)).toEqual([off.id, c.id]);
        expect((await store.recent(10)).map((j) => j.id)).toEqual([off.id, c.id, b.id, a.id]);
        expect(await store.attemptStartsSince(T0 + 100)).toEqual([
          { job_id: b.id, attempt: 1, agent_id: 'agt_a', provider: 'chatgpt', started_at: T0 + 3_700_000, variant: null },
          { job_id: c.id, attempt: 1, agent_id: 'agt_a', provider: 'chatgpt', started_at: T0 + 3_700_001, variant: null },
        ]);
        const starts = await store.startsByAccount(T0, T0 + 200);
        expect(starts.get('acct_1')).toEqual({ today: 2, hour: 1 });
        expect(starts.get(null)).toEqual({ today: 1, hour: 1 });
        expect(await store.queuedOfDisabledAccounts()).toEqual([off.id]);
      });
    });

    describe('pieces of the answer (appendDelta)', () => {
      it("stores the open attempt's pieces in order, tells them after the commit, and refuses any other attempt's", async () => {
        const job = await running();
        const told: string[] = [];
        store.events.onDelta(job.id, (d) => told.push(`${d.seq}:${d.text}`));
        expect(await store.appendDelta(job.id, 1, 'Four')).toEqual({ job_id: job.id, seq: 1, attempt: 1, text: 'Four' });
        expect(await store.appendDelta(job.id, 1, ' is 2+2.')).toMatchObject({ seq: 2 });
        // Not the open attempt, or no such job: nothing is written.
        expect(await store.appendDelta(job.id, 2, 'late')).toBeNull();
        expect(await store.appendDelta('job_none', 1, 'x')).toBeNull();
        expect(told).toEqual(['1:Four', '2: is 2+2.']);
        expect((await store.deltasSince(job.id, 0)).map((d) => d.text)).toEqual(['Four', ' is 2+2.']);
        expect((await store.deltasSince(job.id, 1)).map((d) => d.seq)).toEqual([2]);
      });

      it("takes no piece once the job moved on, and drops a job's pieces, or every final job's", async () => {
        const job = await running();
        const other = await running({}, T0 + 2000);
        await store.appendDelta(job.id, 1, 'a');
        await store.appendDelta(other.id, 1, 'b');
        await store.endAttempt(job.id, 1, succeeded('a'), T0 + 3000);
        expect(await store.appendDelta(job.id, 1, 'late')).toBeNull();
        await store.cancel(other.id, T0 + 3000);
        expect(await store.dropFinishedDeltas()).toBe(2);
        expect(await store.deltasSince(job.id, 0)).toEqual([]);
        const third = await running({}, T0 + 4000);
        await store.appendDelta(third.id, 1, 'c');
        expect(await store.dropFinishedDeltas()).toBe(0);
        await store.dropDeltas(third.id);
        expect(await store.deltasSince(third.id, 0)).toEqual([]);
      });

      it("go with a deleted job", async () => {
        const job = await running();
        await store.appendDelta(job.id, 1, 'a');
        await store.cancel(job.id, T0 + 3000);
        await store.delete(job.id);
        expect(await store.deltasSince(job.id, 0)).toEqual([]);
      });
    });

    describe('events', () => {
      it('come after the commit: a listener reading the store sees the move', async () => {
        // Each listener reads the job at once; each move waits for the read of the one before.
        let reads: Promise<string>[] = [];
        const stop = store.onEvent((e) => reads.push(store.get(e.job.id).then((row) => `${e.job.status}/${row?.status}`)));
        const seen: string[] = [];
        const settled = async () => {
          seen.push(...(await Promise.all(reads)));
          reads = [];
        };
        const job = await submit();
        await settled();
        await store.dispatch([claim(job)], T0 + 1);
        await settled();
        await store.endAttempt(job.id, 1, succeeded(), T0 + 2);
        await settled();
        expect(seen).toEqual(['queued/queued', 'dispatched/dispatched', 'succeeded/succeeded']);
        stop();
        await submit();
        expect(seen).toHaveLength(3);
      });

      it('are not sent for refusals and reads', async () => {
        const job = await submit({}, { idempotency: { key: 'k', hash: 'h', ttlMs: TTL, onOtherHash: 'conflict' }, queuedLimit: 1 });
        events.length = 0;
        await store.submit({ job: newJob(), idempotency: { key: 'k', hash: 'h', ttlMs: TTL, onOtherHash: 'conflict' }, queuedLimit: 1 });
        await store.submit({ job: newJob(), idempotency: { key: 'k', hash: 'x', ttlMs: TTL, onOtherHash: 'conflict' }, queuedLimit: 1 });
        await store.submit({ job: newJob(), queuedLimit: 1 });
        await store.dispatch([{ jobId: 'job_none', agentId: 'agt_a', provider: 'chatgpt' }], T0);
        await store.get(job.id);
        await store.delete(job.id);
        expect(events).toEqual([]);
      });

      it("tell a job's own listeners, and those of every job, each committed move of it, from the store itself", async () => {
        const job = await submit();
        const other = await submit();
        const mine: string[] = [];
        const all: string[] = [];
        const stop = store.events.subscribe(job.id, (row) => mine.push(row.status));
        const stopAll = store.events.subscribeAll((row) => all.push(`${row.id === job.id ? 'job' : 'other'}:${row.status}`));
        expect(store.events.size()).toBe(1);
        await store.dispatch([claim(job), claim(other, 'agt_b')], T0 + 1);
        await store.endAttempt(job.id, 1, succeeded(), T0 + 2);
        await store.cancel(other.id, T0 + 3);
        expect(mine).toEqual(['dispatched', 'succeeded']);
        expect(all).toEqual(['job:dispatched', 'other:dispatched', 'job:succeeded', 'other:cancelled']);
        stop();
        stopAll();
        expect(store.events.size()).toBe(0);
      });
    });
  });
}
