import { describe, expect, it } from 'vitest';
import { HOUR_MS, HourlyUsage } from '../../main/queue/hourly-usage.js';
import { ManualClock } from '../support/manual-clock.js';

describe('hourly usage over a rolling window', () => {
  it('counts per agent, per provider and overall, and forgets after an hour', () => {
    const clock = new ManualClock();
    const usage = new HourlyUsage(clock);
    usage.record('a1', 'chatgpt', clock.now());
    clock.advance(10 * 60_000);
    usage.record('a2', 'chatgpt', clock.now());
    usage.record('a3', 'claude', clock.now());
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
    usage.record('a1', 'chatgpt', t0);
    clock.advance(1_000);
    usage.record('a1', 'chatgpt', t0 + 1_000);
    clock.advance(1_000);
    usage.record('a1', 'chatgpt', t0 + 2_000);
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
      usage.record(`a${i % 2}`, 'qwen', clock.now());
      clock.advance(1_000);
    }
    // Starts every second for 5 000 s: the last hour holds 3 600 of them (the one exactly
    // an hour old has left).
    expect(usage.count('global')).toBe(3_599);
    expect(usage.count({ agentId: 'a0' }) + usage.count({ agentId: 'a1' })).toBe(3_599);
  });
});
