/**
 * The JobStore contract, the rest of a job's life: cancel, expiry, requeueing after a crash,
 * delete, purge and prune, reads, the pieces of a running answer, and the events listeners
 * are told.
 */
import { describe, expect, it } from 'vitest';
import { EVERY_ACCOUNT, type JobRow } from '../../main/core/jobs.js';
import { newJob, T0 } from '../support/new-job.js';
import { DAY, TTL, succeeded, type StoreFixture } from './job-store-fixture.js';

export function lifecycleContract(f: StoreFixture): void {
  const { submit, claim, running } = f;

  describe('cancel', () => {
    it('cancels a queued job, with its outbox row', async () => {
      const job = await submit({ callback_url: 'https://hooks.example/c' });
      const moved = await f.store.cancel(job.id, T0 + 10);
      expect(moved).toMatchObject({ from: 'queued', job: { status: 'cancelled', finished_at: T0 + 10, error_code: null } });
      expect(await f.store.queuedCount(null)).toBe(0);
      expect(await f.t.delivery(job.id)).toMatchObject({ state: 'pending' });
      expect(f.events.at(-1)).toEqual(moved);
    });

    it('cancels a dispatched job and closes its attempt as cancelled', async () => {
      const job = await running({}, T0 + 1000);
      const moved = await f.store.cancel(job.id, T0 + 1500);
      expect(moved).toMatchObject({ from: 'dispatched', job: { status: 'cancelled', run_ms: 500 } });
      expect((await f.store.attempts(job.id))[0]).toMatchObject({ outcome: 'cancelled', error_code: 'CANCELLED', ended_at: T0 + 1500 });
    });

    it('returns a final job as it is, and nothing for an unknown one', async () => {
      const job = await running();
      const done = (await f.store.endAttempt(job.id, 1, succeeded(), T0 + 2000))!.job;
      f.events.length = 0;
      expect(await f.store.cancel(job.id, T0 + 3000)).toEqual({ job: done, from: 'succeeded' });
      expect(await f.store.cancel('job_none', T0 + 3000)).toBeUndefined();
      expect(f.events).toEqual([]);
    });
  });

  describe('expireDue', () => {
    it('expires live jobs past their deadline, queued or dispatched, and leaves the rest', async () => {
      const queued = await submit({ deadline_at: T0 + 5000, callback_url: 'https://hooks.example/e' });
      const busy = await running({ deadline_at: T0 + 6000 }, T0 + 1000);
      const later = await submit({ deadline_at: T0 + 9000 });
      const done = await running({ deadline_at: T0 + 2000 });
      await f.store.endAttempt(done.id, 1, succeeded(), T0 + 1500);
      expect(await f.store.nextDeadline()).toBe(T0 + 5000);
      f.events.length = 0;
      const moved = await f.store.expireDue(T0 + 6000);
      expect(moved.map((m) => [m.job.id, m.from, m.job.status, m.job.error_code]).sort()).toEqual(
        [
          [queued.id, 'queued', 'expired', 'JOB_TIMEOUT'],
          [busy.id, 'dispatched', 'expired', 'JOB_TIMEOUT'],
        ].sort(),
      );
      expect((await f.store.attempts(busy.id))[0]).toMatchObject({ outcome: 'timed_out', error_code: 'DEADLINE_EXCEEDED', ended_at: T0 + 6000 });
      expect(await f.t.delivery(queued.id)).toMatchObject({ state: 'pending' });
      expect((await f.store.get(later.id))!.status).toBe('queued');
      expect(await f.store.nextDeadline()).toBe(T0 + 9000);
      expect(f.events).toHaveLength(2);
      expect(await f.store.expireDue(T0 + 6000)).toEqual([]);
    });
  });

  describe('requeueDispatched', () => {
    it('ends open attempts as agent_lost: back to the queue, or failed when attempts are used up', async () => {
      const first = await running({}, T0 + 1000);
      const last = await running({ max_attempts: 1, callback_url: 'https://hooks.example/r' }, T0 + 1000);
      const queued = await submit();
      const moved = await f.store.requeueDispatched(T0 + 2000);
      expect(moved.map((m) => [m.job.id, m.from, m.job.status]).sort()).toEqual(
        [
          [first.id, 'dispatched', 'queued'],
          [last.id, 'dispatched', 'failed'],
        ].sort(),
      );
      expect((await f.store.attempts(first.id))[0]).toMatchObject({ outcome: 'agent_lost', error_code: 'AGENT_LOST', ended_at: T0 + 2000 });
      expect(await f.store.get(last.id)).toMatchObject({ error_code: 'JOB_FAILED', run_ms: 1000 });
      expect(await f.t.delivery(last.id)).toMatchObject({ state: 'pending' });
      expect((await f.store.get(queued.id))!.status).toBe('queued');
      expect(await f.store.requeueDispatched(T0 + 3000)).toEqual([]);
    });

    it('keeps what an open attempt sent, and leaves a job sent to a conversation with an address dispatched, to collect', async () => {
      const toCollect = await running({}, T0 + 1000);
      const noAddress = await running({ callback_url: 'https://hooks.example/n' }, T0 + 1000);
      const unsent = await running({ max_attempts: 1 }, T0 + 1000);
      await f.store.recordSent(toCollect.id, 1, { conversation: null, turnsBefore: 2 });
      await f.store.recordSent(toCollect.id, 1, { conversation: 'https://chat.example/c/9', turnsBefore: 2 });
      await f.store.recordSent(noAddress.id, 1, { conversation: null, turnsBefore: 0 });
      // An attempt closed keeps what it had.
      const done = await running({}, T0 + 1000);
      await f.store.endAttempt(done.id, 1, succeeded(), T0 + 1500);
      await f.store.recordSent(done.id, 1, { conversation: 'https://chat.example/c/late', turnsBefore: 0 });
      expect((await f.store.attempts(done.id))[0]).toMatchObject({ sent_conversation: null, sent_turns_before: null });

      const moved = await f.store.requeueDispatched(T0 + 2000, 'stopped');
      expect(moved.map((m) => [m.job.id, m.job.status, m.job.error_code]).sort()).toEqual(
        [
          [noAddress.id, 'failed', 'TIMEOUT'],
          [unsent.id, 'queued', null],
        ].sort(),
      );
      expect(await f.t.delivery(noAddress.id)).toMatchObject({ state: 'pending' });
      expect((await f.store.attempts(unsent.id))[0]).toMatchObject({ outcome: 'agent_lost', error_code: 'SERVICE_STOPPED', ended_at: T0 + 2000 });
      expect((await f.store.attempts(noAddress.id))[0]).toMatchObject({ outcome: 'timed_out', error_code: 'ANSWER_NOT_COLLECTED', sent_turns_before: 0 });
      const left = await f.store.sentUncollected();
      expect(left).toEqual([{ job: await f.store.get(toCollect.id), attempt: (await f.store.attempts(toCollect.id))[0] }]);
      expect(left[0]!.job.status).toBe('dispatched');
      expect(left[0]!.attempt).toMatchObject({ ended_at: null, sent_conversation: 'https://chat.example/c/9', sent_turns_before: 2 });
      // A crash's recovery leaves it as well; its agent's collection ends it.
      expect(await f.store.requeueDispatched(T0 + 3000)).toEqual([]);
      await f.store.endAttempt(toCollect.id, 1, succeeded(), T0 + 4000);
      expect(await f.store.sentUncollected()).toEqual([]);
    });
  });

  describe('delete, purge, prune', () => {
    it('refuses to delete a live job, and deletes a final one with its attempts and delivery', async () => {
      const queued = await submit();
      const busy = await running();
      expect(await f.store.delete(queued.id)).toEqual({ deleted: false, status: 'queued' });
      expect(await f.store.delete(busy.id)).toEqual({ deleted: false, status: 'dispatched' });
      await f.store.endAttempt(busy.id, 1, succeeded(), T0 + 2000);
      expect(await f.store.delete('job_none')).toBeUndefined();
      const final = await running({ callback_url: 'https://hooks.example/d' });
      await f.store.cancel(final.id, T0 + 3000);
      expect(await f.t.delivery(final.id)).toBeDefined();
      expect(await f.store.delete(final.id)).toEqual({ deleted: true });
      expect(await f.store.get(final.id)).toBeUndefined();
      expect(await f.store.attempts(final.id)).toEqual([]);
      expect(await f.t.delivery(final.id)).toBeUndefined();
    });

    it('purges finished jobs oldest first, at most `limit`, never live ones', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const job = await running({ created_at: T0 + i });
        await f.store.endAttempt(job.id, 1, succeeded(), T0 + 10_000 - i * 1000); // the last made finished first
        ids.push(job.id);
      }
      const live = await submit();
      expect(await f.store.purgeFinishedBefore(T0 + 9_500, 2)).toBe(2);
      expect((await f.store.recent(10)).map((j) => j.id).sort()).toEqual([ids[0], ids[1], live.id].sort());
      expect(await f.store.purgeFinishedBefore(T0 + 100_000, 10)).toBe(2);
      expect(await f.store.purgeFinishedBefore(T0 + 100_000, 10)).toBe(0);
      expect((await f.store.get(live.id))!.status).toBe('queued');
    });

    it("prunes the content of an account's finished jobs, oldest first, keeping the rest of the row", async () => {
      const mine = [await running({ account_id: 'acct_1' }), await running({ account_id: 'acct_1' }), await running({ account_id: 'acct_1' })];
      for (const [i, job] of mine.entries()) await f.store.endAttempt(job.id, 1, succeeded(`answer ${i}`), T0 + 2000 + i);
      const theirs = await running({ account_id: 'acct_2' });
      await f.store.endAttempt(theirs.id, 1, succeeded(), T0 + 2000);
      const profileF = await running();
      await f.store.endAttempt(profileF.id, 1, succeeded(), T0 + 2000);
      expect(await f.store.pruneContent(T0 + 5000, T0 + 9000, 2, 'acct_1')).toBe(2);
      expect(await f.store.get(mine[0]!.id)).toMatchObject({ prompt: '', response: null, content_pruned_at: T0 + 9000, status: 'succeeded', run_ms: 1000 });
      expect(await f.store.get(mine[2]!.id)).toMatchObject({ response: 'answer 2', content_pruned_at: null });
      expect(await f.store.get(theirs.id)).toMatchObject({ content_pruned_at: null });
      expect(await f.store.pruneContent(T0 + 5000, T0 + 9000, 10)).toBe(1); // Profile F's (account null)
      expect(await f.store.get(profileF.id)).toMatchObject({ prompt: '', content_pruned_at: T0 + 9000 });
      expect(await f.store.pruneContent(T0 + 5000, T0 + 9000, 10, 'acct_1')).toBe(1);
    });

    it('drops idempotency entries past 24 hours', async () => {
      const key = { key: 'k', hash: 'h', ttlMs: 10 * DAY, onOtherHash: 'conflict' as const };
      const first = await submit({}, { idempotency: key, queuedLimit: 1000 });
      await f.store.pruneIdempotency(T0 + DAY - 1);
      expect(await f.store.submit({ job: newJob(), idempotency: key, queuedLimit: 1000 })).toEqual({ kind: 'found', job: first });
      await f.store.pruneIdempotency(T0 + DAY);
      expect((await f.store.submit({ job: newJob(), idempotency: key, queuedLimit: 1000 })).kind).toBe('created');
    });
  });

  describe('reads', () => {
    it('views a job as its caller is shown it: the whole row but the prompt, as it moves and once it is gone', async () => {
      const withoutPrompt = ({ prompt: _prompt, ...view }: JobRow) => view;
      const job = await submit({ prompt: 'x'.repeat(100_000) });
      expect(await f.store.view(job.id)).toEqual(withoutPrompt((await f.store.get(job.id))!));
      expect(await f.store.view(job.id)).not.toHaveProperty('prompt');
      await f.store.dispatch([claim(job)], T0 + 1000);
      expect(await f.store.view(job.id)).toMatchObject({ status: 'dispatched', attempts: 1, agent_id: 'agt_a', queue_ms: 1000 });
      await f.store.endAttempt(job.id, 1, succeeded('the answer'), T0 + 3000);
      const final = await f.store.view(job.id);
      expect(final).toEqual(withoutPrompt((await f.store.get(job.id))!));
      expect(final).toMatchObject({ status: 'succeeded', response: 'the answer', run_ms: 2000, finished_at: T0 + 3000 });
      await f.store.delete(job.id);
      expect(await f.store.view(job.id)).toBeUndefined();
      expect(await f.store.view('job_none')).toBeUndefined();
    });

    it("counts each account's queue, its oldest job and a job's place in it", async () => {
      const a1 = await submit({ account_id: 'acct_1', created_at: T0 + 10 });
      const a2 = await submit({ account_id: 'acct_1', created_at: T0 + 20, priority: 1 });
      const b1 = await submit({ account_id: 'acct_2', created_at: T0 + 5 });
      const f1 = await submit({ account_id: null, created_at: T0 + 30 });
      expect(await f.store.queuedCount('acct_1')).toBe(2);
      expect(await f.store.queuedCount('acct_2')).toBe(1);
      expect(await f.store.queuedCount(null)).toBe(1);
      expect(await f.store.queuedCount(EVERY_ACCOUNT)).toBe(4);
      expect(await f.store.queuePosition(a2)).toBe(1);
      expect(await f.store.queuePosition(a1)).toBe(2);
      expect(await f.store.queuePosition(b1)).toBe(1);
      expect(await f.store.queuePosition(f1)).toBe(1);
      expect(await f.store.oldestQueuedAt('acct_1')).toBe(T0 + 10);
      expect(await f.store.oldestQueuedAt(null)).toBe(T0 + 30);
      expect(await f.store.oldestQueuedAt(EVERY_ACCOUNT)).toBe(T0 + 5);
      expect(await f.store.oldestQueuedAt('acct_none')).toBeNull();
      await f.store.dispatch([claim(a2)], T0 + 40);
      expect(await f.store.queuePosition(a1)).toBe(1);
      expect(await f.store.queuedCount('acct_1')).toBe(1);
    });

    it('places a job among the jobs that compete with it for an agent: another provider\'s jobs are not ahead of it', async () => {
      const anyOne = await submit({ created_at: T0 + 1 });
      const gpt = await submit({ req_provider: 'chatgpt', created_at: T0 + 2 });
      const claude = await submit({ req_provider: 'claude', created_at: T0 + 3 });
      const pinnedA = await submit({ req_provider: 'chatgpt', req_agent_id: 'agt_a', created_at: T0 + 4 });
      const pinnedB = await submit({ req_provider: 'chatgpt', req_agent_id: 'agt_b', created_at: T0 + 5 });
      const gpt2 = await submit({ req_provider: 'chatgpt', created_at: T0 + 6 });
      const places = async () => Promise.all([anyOne, gpt, claude, pinnedA, pinnedB, gpt2].map((j) => f.store.queuePosition(j)));
      // claude: behind the provider-less job only; pinnedB: not behind agt_a's job; gpt2: behind all but claude's.
      expect(await places()).toEqual([1, 2, 2, 3, 3, 5]);
      await f.store.dispatch([claim(anyOne)], T0 + 10);
      expect(await f.store.queuePosition(claude)).toBe(1);
      expect(await f.store.queuePosition(gpt2)).toBe(4);
    });

    it('lists the newest jobs first, attempt starts, starts per account, queued jobs of disabled accounts', async () => {
      const a = await running({ account_id: 'acct_1', created_at: T0 }, T0 + 100);
      const b = await running({ account_id: 'acct_1', created_at: T0 + 1 }, T0 + 3_700_000);
      const c = await running({ account_id: null, created_at: T0 + 2 }, T0 + 3_700_001);
      const off = await submit({ account_id: 'acct_off', created_at: T0 + 3 });
      await f.t.addDisabledAccount('acct_off', T0 + 5);
      expect((await f.store.recent(2)).map((j) => j.id)).toEqual([off.id, c.id]);
      expect((await f.store.recent(10)).map((j) => j.id)).toEqual([off.id, c.id, b.id, a.id]);
      expect(await f.store.attemptStartsSince(T0 + 100)).toEqual([
        { job_id: b.id, attempt: 1, agent_id: 'agt_a', provider: 'chatgpt', started_at: T0 + 3_700_000, variant: null },
        { job_id: c.id, attempt: 1, agent_id: 'agt_a', provider: 'chatgpt', started_at: T0 + 3_700_001, variant: null },
      ]);
      const starts = await f.store.startsByAccount(T0, T0 + 200);
      expect(starts.get('acct_1')).toEqual({ today: 2, hour: 1 });
      expect(starts.get(null)).toEqual({ today: 1, hour: 1 });
      expect(await f.store.queuedOfDisabledAccounts()).toEqual([off.id]);
    });
  });

  describe('pieces of the answer (appendDelta)', () => {
    it("stores the open attempt's pieces in order, tells them after the commit, and refuses any other attempt's", async () => {
      const job = await running();
      const told: string[] = [];
      f.store.events.onDelta(job.id, (d) => told.push(`${d.seq}:${d.text}`));
      expect(await f.store.appendDelta(job.id, 1, 'Four')).toEqual({ job_id: job.id, seq: 1, attempt: 1, text: 'Four' });
      expect(await f.store.appendDelta(job.id, 1, ' is 2+2.')).toMatchObject({ seq: 2 });
      // Not the open attempt, or no such job: nothing is written.
      expect(await f.store.appendDelta(job.id, 2, 'late')).toBeNull();
      expect(await f.store.appendDelta('job_none', 1, 'x')).toBeNull();
      expect(told).toEqual(['1:Four', '2: is 2+2.']);
      expect((await f.store.deltasSince(job.id, 0)).map((d) => d.text)).toEqual(['Four', ' is 2+2.']);
      expect((await f.store.deltasSince(job.id, 1)).map((d) => d.seq)).toEqual([2]);
    });

    it("takes no piece once the job moved on, and drops a job's pieces, or every final job's", async () => {
      const job = await running();
      const other = await running({}, T0 + 2000);
      await f.store.appendDelta(job.id, 1, 'a');
      await f.store.appendDelta(other.id, 1, 'b');
      await f.store.endAttempt(job.id, 1, succeeded('a'), T0 + 3000);
      expect(await f.store.appendDelta(job.id, 1, 'late')).toBeNull();
      await f.store.cancel(other.id, T0 + 3000);
      expect(await f.store.dropFinishedDeltas()).toBe(2);
      expect(await f.store.deltasSince(job.id, 0)).toEqual([]);
      const third = await running({}, T0 + 4000);
      await f.store.appendDelta(third.id, 1, 'c');
      expect(await f.store.dropFinishedDeltas()).toBe(0);
      await f.store.dropDeltas(third.id);
      expect(await f.store.deltasSince(third.id, 0)).toEqual([]);
    });

    it("go with a deleted job", async () => {
      const job = await running();
      await f.store.appendDelta(job.id, 1, 'a');
      await f.store.cancel(job.id, T0 + 3000);
      await f.store.delete(job.id);
      expect(await f.store.deltasSince(job.id, 0)).toEqual([]);
    });
  });

  describe('events', () => {
    it('come after the commit: a listener reading the store sees the move', async () => {
      // Each listener reads the job at once; each move waits for the read of the one before.
      let reads: Promise<string>[] = [];
      const stop = f.store.onEvent((e) => reads.push(f.store.get(e.job.id).then((row) => `${e.job.status}/${row?.status}`)));
      const seen: string[] = [];
      const settled = async () => {
        seen.push(...(await Promise.all(reads)));
        reads = [];
      };
      const job = await submit();
      await settled();
      await f.store.dispatch([claim(job)], T0 + 1);
      await settled();
      await f.store.endAttempt(job.id, 1, succeeded(), T0 + 2);
      await settled();
      expect(seen).toEqual(['queued/queued', 'dispatched/dispatched', 'succeeded/succeeded']);
      stop();
      await submit();
      expect(seen).toHaveLength(3);
    });

    it('are not sent for refusals and reads', async () => {
      const job = await submit({}, { idempotency: { key: 'k', hash: 'h', ttlMs: TTL, onOtherHash: 'conflict' }, queuedLimit: 1 });
      f.events.length = 0;
      await f.store.submit({ job: newJob(), idempotency: { key: 'k', hash: 'h', ttlMs: TTL, onOtherHash: 'conflict' }, queuedLimit: 1 });
      await f.store.submit({ job: newJob(), idempotency: { key: 'k', hash: 'x', ttlMs: TTL, onOtherHash: 'conflict' }, queuedLimit: 1 });
      await f.store.submit({ job: newJob(), queuedLimit: 1 });
      await f.store.dispatch([{ jobId: 'job_none', agentId: 'agt_a', provider: 'chatgpt' }], T0);
      await f.store.get(job.id);
      await f.store.delete(job.id);
      expect(f.events).toEqual([]);
    });

    it("tell a job's own listeners, and those of every job, each committed move of it, from the store itself", async () => {
      const job = await submit();
      const other = await submit();
      const mine: string[] = [];
      const all: string[] = [];
      const stop = f.store.events.subscribe(job.id, (row) => mine.push(row.status));
      const stopAll = f.store.events.subscribeAll((row) => all.push(`${row.id === job.id ? 'job' : 'other'}:${row.status}`));
      expect(f.store.events.size()).toBe(1);
      await f.store.dispatch([claim(job), claim(other, 'agt_b')], T0 + 1);
      await f.store.endAttempt(job.id, 1, succeeded(), T0 + 2);
      await f.store.cancel(other.id, T0 + 3);
      expect(mine).toEqual(['dispatched', 'succeeded']);
      expect(all).toEqual(['job:dispatched', 'other:dispatched', 'job:succeeded', 'other:cancelled']);
      stop();
      stopAll();
      expect(f.store.events.size()).toBe(0);
    });
  });
}
