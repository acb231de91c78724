import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AttemptStart } from '../../main/core/jobs.js';
import { openDatabase } from '../../main/storage/sqlite/db.js';
import { HOUR_MS, HourlyUsage } from '../../main/queue/hourly-usage.js';
import { SqliteJobStore } from '../../main/storage/sqlite/job-store.js';
import { tempDataDir } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { newJob } from '../support/new-job.js';
import { submit } from '../support/store.js';
import { SqliteWebhookOutbox } from '../../main/storage/sqlite/outbox.js';

let serial = 0;
/** A start of its own job (each call another attempt). */
const start = (agent_id: string, provider: string, started_at: number, job_id = `job_${++serial}`, attempt = 1): AttemptStart => ({
  job_id,
  attempt,
  agent_id,
  provider,
  started_at,
});

describe('hourly usage over a rolling window', () => {
  it('counts per agent, per provider and overall, and forgets after an hour', () => {
    const clock = new ManualClock();
    const usage = new HourlyUsage(clock);
    usage.record(start('a1', 'chatgpt', clock.now()));
    clock.advance(10 * 60_000);
    usage.record(start('a2', 'chatgpt', clock.now()));
    usage.record(start('a3', 'claude', clock.now()));
    expect(usage.count({ agentId: 'a1' })).toBe(1);
    expect(usage.count({ provider: 'chatgpt' })).toBe(2);
    expect(usage.count('global')).toBe(3);
    clock.advance(50 * 60_000); // the first start is now exactly an hour old
    expect(usage.count({ agentId: 'a1' })).toBe(0);
    expect(usage.count({ provider: 'chatgpt' })).toBe(1);
    expect(usage.count('global')).toBe(2);
  });

  it('says when a full cap frees its next slot', () => {
    const clock = new ManualClock();
    const usage = new HourlyUsage(clock);
    const t0 = clock.now();
    usage.record(start('a1', 'chatgpt', t0));
    clock.advance(1_000);
    usage.record(start('a1', 'chatgpt', t0 + 1_000));
    clock.advance(1_000);
    usage.record(start('a1', 'chatgpt', t0 + 2_000));
    expect(usage.allows({ agentId: 'a1' }, 3)).toBe(false);
    expect(usage.allows({ agentId: 'a1' }, null)).toBe(true);
    expect(usage.nextSlotAt({ agentId: 'a1' }, 3)).toBe(t0 + HOUR_MS);
    expect(usage.nextSlotAt({ agentId: 'a1' }, 2)).toBe(t0 + 1_000 + HOUR_MS);
    expect(usage.nextSlotAt({ agentId: 'a1' }, 4)).toBeNull();
    expect(usage.nextSlotAt('global', 1)).toBe(t0 + 2_000 + HOUR_MS);
  });

  it('stays correct across many starts', () => {
    const clock = new ManualClock();
    const usage = new HourlyUsage(clock);
    for (let i = 0; i < 5_000; i++) {
      usage.record(start(`a${i % 2}`, 'qwen', clock.now()));
      clock.advance(1_000);
    }
    // Starts every second for 5 000 s: the last hour holds 3 600 of them (the one exactly
    // an hour old has left).
    expect(usage.count('global')).toBe(3_599);
    expect(usage.count({ agentId: 'a0' }) + usage.count({ agentId: 'a1' })).toBe(3_599);
  });

  it("keeps the window in time order when a start is heard late (another instance's)", () => {
    const clock = new ManualClock();
    const usage = new HourlyUsage(clock);
    const t0 = clock.now();
    clock.advance(2_000);
    usage.record(start('a1', 'chatgpt', t0 + 2_000));
    usage.record(start('a2', 'chatgpt', t0));
    expect(usage.nextSlotAt({ provider: 'chatgpt' }, 2)).toBe(t0 + HOUR_MS);
    clock.advance(HOUR_MS - 2_000);
    expect(usage.count({ agentId: 'a2' })).toBe(0);
    expect(usage.count({ agentId: 'a1' })).toBe(1);
    // Heard after it left the window: nothing to count.
    usage.record(start('a3', 'claude', t0));
    expect(usage.count('global')).toBe(1);
  });

  it('counts a start once, however often it is heard', () => {
    const clock = new ManualClock();
    const usage = new HourlyUsage(clock);
    const once = start('a1', 'chatgpt', clock.now(), 'job_x', 1);
    usage.record(once);
    usage.record({ ...once });
    usage.record({ ...once, attempt: 2 });
    expect(usage.count({ agentId: 'a1' })).toBe(2);
  });
});

describe('hourly usage following a job store', () => {
  it("counts the past hour's starts and each dispatch after, a start committed while it reads the past once", async () => {
    const dir = tempDataDir();
    const db = openDatabase(dir);
    const store = new SqliteJobStore(db, new SqliteWebhookOutbox(db));
    try {
      const clock = new ManualClock();
      const dispatch = async (agentId: string, at: number) => {
        const job = await submit(store, newJob({ created_at: at }));
        await store.dispatch([{ jobId: job.id, agentId, provider: 'chatgpt' }], at);
      };
      await dispatch('a_old', clock.now() - HOUR_MS); // left the window
      await dispatch('a1', clock.now() - 60_000);
      const usage = new HourlyUsage(clock);
      // The past is read just after a dispatch that the events carry too.
      await usage.follow({
        onEvent: (listener) => store.onEvent(listener),
        attemptStartsSince: async (since) => {
          await dispatch('a2', clock.now());
          return store.attemptStartsSince(since);
        },
      });
      expect(usage.count('global')).toBe(2);
      await dispatch('a2', clock.now());
      expect([usage.count('global'), usage.count({ agentId: 'a1' }), usage.count({ agentId: 'a2' }), usage.count({ agentId: 'a_old' })]).toEqual([3, 1, 2, 0]);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
