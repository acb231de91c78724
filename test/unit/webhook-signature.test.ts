import { describe, expect, it } from 'vitest';
import { nextAttemptAt, RETRY_DELAYS_MS, ATTEMPTS_PER_ROUND } from '../../main/webhooks/schedule.js';
import { signature } from '../../main/webhooks/signature.js';

describe('webhook signature', () => {
  it('is sha256= and the hex HMAC-SHA256 of "<timestamp>.<raw body>" (vector from the openssl binary)', () => {
    // printf '%s' '1700000000.{"id":"job_1","status":"succeeded"}' | openssl dgst -sha256 -hmac whsec_test
    const body = Buffer.from('{"id":"job_1","status":"succeeded"}');
    expect(signature('whsec_test', 1_700_000_000, body)).toBe(
      'sha256=407df40e7409eeaf98fcf475ab0ede7ada1cb20c25316e8bf75995ac8192024c',
    );
  });

  it('signs bytes, not text: a body that is not valid UTF-8 is signed as sent', () => {
    const a = signature('whsec_test', 1, Buffer.from([0xff, 0xfe]));
    const b = signature('whsec_test', 1, Buffer.from([0xff, 0xfd]));
    expect(a).not.toBe(b);
  });
});

describe('webhook schedule', () => {
  it('five attempts: at once, then 30 s, 5 min, 30 min and 2 h after each failure; then none', () => {
    expect(ATTEMPTS_PER_ROUND).toBe(5);
    expect(RETRY_DELAYS_MS).toEqual([30_000, 300_000, 1_800_000, 7_200_000]);
    expect([1, 2, 3, 4, 5].map((made) => nextAttemptAt(made, 1_000))).toEqual([31_000, 301_000, 1_801_000, 7_201_000, null]);
  });
});
