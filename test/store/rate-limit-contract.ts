/**
 * What every per-key request limiter must do (the RateLimiter port: the GCRA of
 * main/keys/rate-limit.ts), on an injected clock, as one suite each implementation runs:
 * test/store/sqlite-settings.test.ts (in memory), test/store/pg-settings.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RateLimiter } from '../../main/keys/rate-limit.js';
import { ManualClock } from '../support/manual-clock.js';

export interface LimitsUnderTest {
  /** A limiter of `budget` on the test's database, on `clock`. */
  limiter(clock: ManualClock, budget: 'read' | 'write', perMinute: number): Promise<RateLimiter>;
  close(): Promise<void>;
}

export function rateLimitContract(name: string, makeLimits: () => Promise<LimitsUnderTest>): void {
  describe(`${name} per-key request limits (the RateLimiter port)`, () => {
    let t: LimitsUnderTest;
    let clock: ManualClock;
    beforeEach(async () => {
      t = await makeLimits();
      clock = new ManualClock();
    });
    afterEach(() => t.close());

    it('allows the whole minute budget as a burst, then refills steadily', async () => {
      const limiter = await t.limiter(clock, 'write', 600);
      for (let i = 0; i < 600; i++) expect(await limiter.take('k')).toBe(0);
      expect(await limiter.take('k')).toBeGreaterThanOrEqual(1);
      clock.advance(100); // one request per 100 ms at 600/min
      expect(await limiter.take('k')).toBe(0);
      expect(await limiter.take('k')).toBeGreaterThan(0);
    });

    it('says how many seconds to wait, and keeps keys and budgets apart', async () => {
      const write = await t.limiter(clock, 'write', 2);
      const read = await t.limiter(clock, 'read', 2);
      expect(await write.take('a')).toBe(0);
      expect(await write.take('a')).toBe(0);
      expect(await write.take('a')).toBe(30);
      clock.advance(10_500);
      // A refused request does not push the next one further back.
      expect(await write.take('a')).toBe(20);
      expect(await write.take('b')).toBe(0);
      expect(await read.take('a')).toBe(0);
      clock.advance(19_500);
      expect(await write.take('a')).toBe(0);
      expect(await write.take('a')).toBe(30);
    });

    it('allows the burst plus one request per interval over a long run, and no more', async () => {
      const limiter = await t.limiter(clock, 'read', 1_200);
      let allowed = 0;
      // Ten requests every 125 ms for a minute: four times the 1 200 a minute.
      for (let step = 0; step < 480; step++) {
        for (let i = 0; i < 10; i++) if ((await limiter.take('k')) === 0) allowed++;
        clock.advance(125);
      }
      // 1 200 at once, then one per 50 ms over the 59.875 s from the first step to the last.
      expect(allowed).toBe(1_200 + Math.floor(59_875 / 50));
    });
  });
}
