import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../main/api/rate-limit.js';
import { ManualClock } from '../support/manual-clock.js';

describe('per-key rate limiter', () => {
  it('allows the whole minute budget as a burst, then refills steadily', () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(clock, 600);
    for (let i = 0; i < 600; i++) expect(limiter.take('k')).toBe(0);
    const wait = limiter.take('k');
    expect(wait).toBeGreaterThanOrEqual(1);
    clock.advance(100); // one request per 100 ms at 600/min
    expect(limiter.take('k')).toBe(0);
    expect(limiter.take('k')).toBeGreaterThan(0);
  });

  it('keeps keys apart', () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(clock, 2);
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(30);
    expect(limiter.take('b')).toBe(0);
  });
});
