/**
 * The JobStore contract, the queue's half: submit (idempotency, the queued limit), dispatch
 * (order, claims, caps) and endAttempt (outcomes, retries, deliveries).
 */
import { describe, expect, it } from 'vitest';
import { type JobRow } from '../../main/core/jobs.js';
import { newJob, T0 } from '../support/new-job.js';
import { HOUR, TTL, succeeded, providerError, type StoreFixture } from './job-store-fixture.js';

export function queueContract(f: StoreFixture): void {
  const { submit, claim, running } = f;

  describe('submit', () => {
    it('creates a queued job with the row as given, and tells listeners after the commit', async () => {
      const job = await submit({ priority: 5, callback_url: 'https://hooks.example:8443/x', account_id: 'acct_1' });
      expect(job).toMatchObject({ status: 'queued', priority: 5, attempts: 0, run_ms: 0, queue_ms: null, agent_id: null, finished_at: null, account_id: 'acct_1' });
      expect(await f.store.get(job.id)).toEqual(job);
      expect(f.events).toEqual([{ job, from: null }]);
    });

    it('finds the job of a repeated Idempotency-Key with the same request, and writes nothing', async () => {
      const key = { key: 'k1', hash: 'h1', ttlMs: TTL, onOtherHash: 'conflict' as const };
      const first = await submit({}, { idempotency: key, queuedLimit: 1000 });
      const again = await f.store.submit({ job: newJob({ created_at: T0 + 5000 }), idempotency: key, queuedLimit: 1000 });
      expect(again).toEqual({ kind: 'found', job: first });
      expect(await f.store.queuedCount(null)).toBe(1);
      expect(f.events).toHaveLength(1);
    });

    it('calls the same key with another request a conflict, and writes nothing', async () => {
      await submit({}, { idempotency: { key: 'k1', hash: 'h1', ttlMs: TTL, onOtherHash: 'conflict' }, queuedLimit: 1000 });
      const other = await f.store.submit({ job: newJob(), idempotency: { key: 'k1', hash: 'h2', ttlMs: TTL, onOtherHash: 'conflict' }, queuedLimit: 1000 });
      expect(other).toEqual({ kind: 'conflict' });
      expect(await f.store.queuedCount(null)).toBe(1);
    });

    it("replaces an implicit key's entry for another request, and refreshes an entry it finds", async () => {
      const implicit = (hash: string, ttlMs = 60_000) => ({ key: 'auto', hash, ttlMs, onOtherHash: 'replace' as const });
      const a = await submit({}, { idempotency: implicit('h1'), queuedLimit: 1000 });
      const b = await submit({ created_at: T0 + 1000 }, { idempotency: implicit('h2'), queuedLimit: 1000 });
      expect(b.id).not.toBe(a.id);
      // Found at +50 s, the entry is refreshed: still found at +100 s, past a's own 60 s window.
      expect(await f.store.submit({ job: newJob({ created_at: T0 + 51_000 }), idempotency: implicit('h2'), queuedLimit: 1000 })).toEqual({ kind: 'found', job: b });
      expect(await f.store.submit({ job: newJob({ created_at: T0 + 101_000 }), idempotency: implicit('h2'), queuedLimit: 1000 })).toEqual({ kind: 'found', job: b });
    });

    it('makes a new job when the entry is older than the TTL, or its job was deleted', async () => {
      const key = (ttlMs: number) => ({ key: 'k1', hash: 'h1', ttlMs, onOtherHash: 'conflict' as const });
      const first = await submit({}, { idempotency: key(TTL), queuedLimit: 1000 });
      const late = await submit({ created_at: T0 + TTL }, { idempotency: key(TTL), queuedLimit: 1000 });
      expect(late.id).not.toBe(first.id);
      await f.store.cancel(late.id, T0 + TTL + 1);
      expect(await f.store.delete(late.id)).toEqual({ deleted: true });
      const after = await submit({ created_at: T0 + TTL + 2 }, { idempotency: key(TTL), queuedLimit: 1000 });
      expect([first.id, late.id]).not.toContain(after.id);
      expect(await f.store.submit({ job: newJob({ created_at: T0 + TTL + 3 }), idempotency: key(TTL), queuedLimit: 1000 })).toEqual({ kind: 'found', job: after });
    });

    it('rejects a submission that fails (an id already taken), writing nothing, not even its key', async () => {
      const job = await submit();
      f.events.length = 0;
      const key = { key: 'k2', hash: 'h', ttlMs: TTL, onOtherHash: 'conflict' as const };
      await expect(f.store.submit({ job: newJob({ id: job.id, prompt: 'other' }), idempotency: key, queuedLimit: 1000 })).rejects.toThrow();
      expect(await f.store.get(job.id)).toEqual(job);
      expect(f.events).toEqual([]);
      expect((await f.store.submit({ job: newJob(), idempotency: key, queuedLimit: 1000 })).kind).toBe('created');
    });

    it("refuses a job past the account's queued limit and writes nothing, not even its key", async () => {
      for (let i = 0; i < 3; i++) await submit({ account_id: 'acct_1' }, { queuedLimit: 3 });
      const key = { key: 'acct_1 k', hash: 'h', ttlMs: TTL, onOtherHash: 'conflict' as const };
      expect(await f.store.submit({ job: newJob({ account_id: 'acct_1' }), idempotency: key, queuedLimit: 3 })).toEqual({ kind: 'queue_full' });
      expect(await f.store.queuedCount('acct_1')).toBe(3);
      // Another account's queue, and Profile F's, are their own.
      await submit({ account_id: 'acct_2' }, { queuedLimit: 3 });
      await submit({ account_id: null }, { queuedLimit: 3 });
      // A dispatched job no longer counts; the refused key was never recorded.
      const [queued] = await f.store.queuedInOrder();
      await f.store.dispatch([{ jobId: queued!.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 1);
      expect((await f.store.submit({ job: newJob({ account_id: 'acct_1' }), idempotency: key, queuedLimit: 3 })).kind).toBe('created');
      expect(f.events.filter((e) => e.from === null)).toHaveLength(6);
    });

    it('with refuseNew, still finds the key\'s job and still says the queue is full, and otherwise writes nothing', async () => {
      const key = (k: string) => ({ key: k, hash: 'h', ttlMs: TTL, onOtherHash: 'conflict' as const });
      const original = await submit({}, { idempotency: key('k3'), queuedLimit: 1000 });
      f.events.length = 0;
      expect(await f.store.submit({ job: newJob(), idempotency: key('k3'), queuedLimit: 1000, refuseNew: true })).toEqual({ kind: 'found', job: original });
      expect(await f.store.submit({ job: newJob(), queuedLimit: 1, refuseNew: true })).toEqual({ kind: 'queue_full' });
      const refused = newJob();
      expect(await f.store.submit({ job: refused, idempotency: key('k4'), queuedLimit: 1000, refuseNew: true })).toEqual({ kind: 'refused' });
      expect(await f.store.get(refused.id)).toBeUndefined();
      expect(f.events).toEqual([]);
      // The refused request's key was not recorded: the same key with another request makes a job, no conflict.
      expect((await f.store.submit({ job: newJob(), idempotency: { ...key('k4'), hash: 'other' }, queuedLimit: 1000 })).kind).toBe('created');
    });
  });

  describe('dispatch', () => {
    it('orders the queue by priority, then age, then id', async () => {
      const low = await submit({ created_at: T0 });
      const highNew = await submit({ priority: 9, created_at: T0 + 20 });
      const highOld = await submit({ priority: 9, created_at: T0 + 10 });
      const sameTime = await submit({ priority: 9, created_at: T0 + 10 });
      expect((await f.store.queuedInOrder()).map((j) => j.id)).toEqual([highOld.id, sameTime.id, highNew.id, low.id]);
      expect(await f.store.queuedInOrder()).toContainEqual({ id: low.id, req_provider: null, req_agent_id: null, conversation_in: null, account_id: null, variant: null, attachments: [] });
    });

    it('moves each claimed job to dispatched with a new open attempt, in claim order', async () => {
      const a = await submit();
      const b = await submit({ created_at: T0 + 1 });
      f.events.length = 0;
      const out = await f.store.dispatch([claim(b, 'agt_b', 'claude'), claim(a, 'agt_a', 'chatgpt')], T0 + 500);
      expect(out.map((j) => [j.id, j.status, j.agent_id, j.provider, j.attempts])).toEqual([
        [b.id, 'dispatched', 'agt_b', 'claude', 1],
        [a.id, 'dispatched', 'agt_a', 'chatgpt', 1],
      ]);
      expect(out[1]!.queue_ms).toBe(500);
      expect(await f.store.attempts(a.id)).toEqual([
        {
          ...{ job_id: a.id, attempt: 1, agent_id: 'agt_a', provider: 'chatgpt', started_at: T0 + 500, ended_at: null, outcome: null, error_code: null, detail: null },
          ...{ sent_conversation: null, sent_turns_before: null },
        },
      ]);
      expect(f.events.map((e) => [e.job.id, e.from, e.job.status])).toEqual([
        [b.id, 'queued', 'dispatched'],
        [a.id, 'queued', 'dispatched'],
      ]);
      // Each event carries the attempt it started, for the hourly window of every instance.
      expect(f.events.map((e) => e.start)).toEqual([
        { job_id: b.id, attempt: 1, agent_id: 'agt_b', provider: 'claude', started_at: T0 + 500 },
        { job_id: a.id, attempt: 1, agent_id: 'agt_a', provider: 'chatgpt', started_at: T0 + 500 },
      ]);
      expect(await f.store.queuedInOrder()).toEqual([]);
    });

    it('holds each claim to its agent, provider and global caps: the starts of the hour before now and the claims before it count', async () => {
      const now = T0 + 2 * HOUR;
      const past = async (agentId: string, provider: string, at: number) => f.store.dispatch([{ jobId: (await submit()).id, agentId, provider }], at);
      await past('agt_a', 'chatgpt', now - HOUR); // an hour old: out of the window
      await past('agt_a', 'chatgpt', now - HOUR + 1);
      await past('agt_b', 'claude', now - 10);
      const q = await Promise.all(Array.from({ length: 6 }, () => submit()));
      f.events.length = 0;
      const capped = (job: JobRow, agentId: string, provider: string, agent: number | null, prov: number | null, global: number | null) => ({
        ...claim(job, agentId, provider),
        caps: { agent, provider: prov, global },
      });
      const out = await f.store.dispatch(
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
      expect(f.events.map((e) => e.start?.agent_id)).toEqual(['agt_a', 'agt_c', 'agt_b', 'agt_f']);
      for (const skipped of [q[3]!, q[5]!]) {
        expect((await f.store.get(skipped.id))!.status).toBe('queued');
        expect(await f.store.attempts(skipped.id)).toEqual([]);
      }
      // A minute later agt_a's start of an hour and a minute ago has left; agt_a's cap of 2 has room again.
      expect((await f.store.dispatch([capped(q[3]!, 'agt_a', 'chatgpt', 2, null, null)], now + 1)).map((j) => j.id)).toEqual([q[3]!.id]);
      expect(await f.store.dispatch([capped(q[5]!, 'agt_a', 'chatgpt', 2, null, null)], now + 2)).toEqual([]);
    });

    it("holds a claim to its variant's cap: the hour's starts of jobs asking for that variant, on any agent, count", async () => {
      const pro = () => submit({ req_provider: 'chatgpt', variant: 'pro' });
      await f.store.dispatch([claim(await pro(), 'agt_a'), claim(await submit({ req_provider: 'chatgpt', variant: 'thinking' }), 'agt_b'), claim(await submit(), 'agt_c')], T0);
      const capped = async (agentId: string, cap: number) => ({ ...claim(await pro(), agentId), caps: { agent: null, provider: null, global: null, variant: cap }, variant: 'chatgpt/pro' });
      const [fits, full] = [await capped('agt_d', 2), await capped('agt_e', 2)];
      expect((await f.store.dispatch([fits, full], T0 + 10)).map((j) => j.id)).toEqual([fits.jobId]);
      expect(await f.store.attemptStartsSince(T0 - 1)).toEqual([
        expect.objectContaining({ agent_id: 'agt_a', variant: 'pro' }),
        expect.objectContaining({ agent_id: 'agt_b', variant: 'thinking' }),
        expect.objectContaining({ agent_id: 'agt_c', variant: null }),
        expect.objectContaining({ agent_id: 'agt_d', variant: 'pro' }),
      ]);
    });

    it('counts nothing against caps of null', async () => {
      for (let i = 0; i < 3; i++) await f.store.dispatch([claim(await submit(), 'agt_a')], T0 + i);
      const job = await submit();
      const out = await f.store.dispatch([{ ...claim(job, 'agt_a'), caps: { agent: null, provider: null, global: null } }], T0 + 10);
      expect(out.map((j) => j.id)).toEqual([job.id]);
    });

    it('skips claims whose job is no longer queued, and a job claimed twice in one round', async () => {
      const cancelled = await submit();
      const taken = await submit();
      const free = await submit();
      await f.store.cancel(cancelled.id, T0 + 1);
      await f.store.dispatch([claim(taken)], T0 + 2);
      const out = await f.store.dispatch([claim(cancelled), claim(taken, 'agt_b'), claim(free, 'agt_c'), claim(free, 'agt_d'), { jobId: 'job_none', agentId: 'agt_e', provider: 'qwen' }], T0 + 3);
      expect(out.map((j) => [j.id, j.agent_id])).toEqual([[free.id, 'agt_c']]);
      expect((await f.store.get(taken.id))!.agent_id).toBe('agt_a');
      expect(await f.store.attempts(free.id)).toHaveLength(1);
      expect(await f.store.dispatch([], T0 + 4)).toEqual([]);
    });
  });

  describe('endAttempt', () => {
    it('succeeds: the answer, the conversation, the closed attempt, the run time and the outbox row', async () => {
      const job = await running({ callback_url: 'https://hooks.example/done', account_id: 'acct_1' }, T0 + 1000);
      f.events.length = 0;
      const moved = await f.store.endAttempt(job.id, 1, succeeded('4', 'cv_x'), T0 + 4000);
      expect(moved!.from).toBe('dispatched');
      expect(moved!.job).toMatchObject({ status: 'succeeded', response: '4', conversation_ref: 'cv_x', finished_at: T0 + 4000, run_ms: 3000, queue_ms: 1000 });
      expect(await f.store.get(job.id)).toEqual(moved!.job);
      expect(await f.store.conversation('cv_x')).toEqual({
        id: 'cv_x', agent_id: 'agt_a', provider: 'chatgpt', address: 'https://chat.example/c/cv_x', created_at: T0 + 4000, updated_at: T0 + 4000, account_id: 'acct_1',
      });
      expect((await f.store.attempts(job.id))[0]).toMatchObject({ ended_at: T0 + 4000, outcome: 'succeeded', error_code: null });
      expect(await f.t.delivery(job.id)).toMatchObject({ origin: 'https://hooks.example', state: 'pending', round: 1, next_at: T0 + 4000 });
      expect(f.events).toEqual([moved]);
    });

    it('keeps the variant asked for from the submission, and the model that answered from the success', async () => {
      const job = await running({ variant: 'thinking' });
      expect(job).toMatchObject({ variant: 'thinking', model_used: null });
      expect((await f.store.queuedInOrder()).length).toBe(0);
      const moved = await f.store.endAttempt(job.id, 1, { outcome: 'succeeded', response: '4', conversationRef: 'cv_1', conversationAddress: 'https://chat.example/c/cv_1', modelUsed: 'gpt-5-thinking' }, T0 + 4000);
      expect(moved!.job).toMatchObject({ status: 'succeeded', variant: 'thinking', model_used: 'gpt-5-thinking' });
      expect(await f.store.get(job.id)).toEqual(moved!.job);
      const plain = await running({ created_at: T0 + 1 });
      expect((await f.store.endAttempt(plain.id, 1, succeeded('5', 'cv_2'), T0 + 5000))!.job).toMatchObject({ variant: null, model_used: null });
    });

    it('records how an answer came when it is said: one collected by reopening its conversation', async () => {
      const job = await running({ variant: 'pro' });
      const detail = "The answer finished after the attempt's 5 s: collected by reopening its conversation, nothing sent again.";
      expect((await f.store.endAttempt(job.id, 1, { ...succeeded('4', 'cv_1'), detail }, T0 + 4000))!.job.status).toBe('succeeded');
      expect(await f.store.attempts(job.id)).toMatchObject([{ outcome: 'succeeded', error_code: null, detail }]);
    });

    it('a continued conversation keeps its row and gets the new address', async () => {
      const first = await running();
      await f.store.endAttempt(first.id, 1, succeeded('a', 'cv_c'), T0 + 2000);
      const next = await running({ conversation_in: 'cv_c', created_at: T0 + 3000 }, T0 + 3000);
      await f.store.endAttempt(next.id, 1, succeeded('b', 'cv_c', 'https://chat.example/c/moved'), T0 + 5000);
      expect(await f.store.conversation('cv_c')).toMatchObject({ address: 'https://chat.example/c/moved', created_at: T0 + 2000, updated_at: T0 + 5000 });
    });

    it('a failure with attempts left puts the job back in the queue; the next dispatch is attempt 2', async () => {
      const job = await running();
      const moved = await f.store.endAttempt(job.id, 1, providerError, T0 + 3000);
      expect(moved).toMatchObject({ from: 'dispatched', job: { status: 'queued', attempts: 1, finished_at: null } });
      expect((await f.store.attempts(job.id))[0]).toMatchObject({ outcome: 'failed', error_code: 'PROVIDER_ERROR', detail: 'Something went wrong', ended_at: T0 + 3000 });
      const [again] = await f.store.dispatch([claim(job, 'agt_b')], T0 + 4000);
      expect(again).toMatchObject({ attempts: 2, agent_id: 'agt_b', queue_ms: 1000 });
      expect((await f.store.attempts(job.id)).map((a) => [a.attempt, a.agent_id, a.ended_at])).toEqual([
        [1, 'agt_a', T0 + 3000],
        [2, 'agt_b', null],
      ]);
    });

    it('fails the job after its last attempt, with the outbox row', async () => {
      const job = await running({ max_attempts: 2, callback_url: 'http://127.0.0.1:9/hook' });
      await f.store.endAttempt(job.id, 1, providerError, T0 + 2000);
      await f.store.dispatch([claim(job)], T0 + 3000);
      const moved = await f.store.endAttempt(job.id, 2, providerError, T0 + 4000);
      expect(moved!.job).toMatchObject({ status: 'failed', error_code: 'PROVIDER_ERROR', error_message: 'The provider showed an error on all 2 attempts.', finished_at: T0 + 4000 });
      expect(await f.t.delivery(job.id)).toMatchObject({ origin: 'http://127.0.0.1:9', state: 'pending' });
    });

    it('a refusal is final at once', async () => {
      const job = await running();
      const moved = await f.store.endAttempt(job.id, 1, { outcome: 'failed', errorCode: 'PROMPT_REJECTED' }, T0 + 2000);
      expect(moved!.job).toMatchObject({ status: 'failed', error_code: 'PROMPT_REJECTED' });
      expect(await f.t.delivery(job.id)).toBeUndefined(); // no callback_url, no delivery
    });

    it("drops a late result: another attempt's, or one that ended with a cancel", async () => {
      const job = await running();
      expect(await f.store.endAttempt(job.id, 2, succeeded(), T0 + 2000)).toBeNull();
      await f.store.cancel(job.id, T0 + 2500);
      f.events.length = 0;
      expect(await f.store.endAttempt(job.id, 1, succeeded(), T0 + 3000)).toBeNull();
      expect(await f.store.get(job.id)).toMatchObject({ status: 'cancelled', response: null });
      expect(f.events).toEqual([]);
    });
  });
}
