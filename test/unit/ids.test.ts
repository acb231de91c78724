import { describe, expect, it } from 'vitest';
import { randomIds } from '../../main/core/ids.js';

describe('job ids', () => {
  it('sort in the order they were made, also within one millisecond', () => {
    const made = Array.from({ length: 1_000 }, () => randomIds.job(1_795_000_000_000));
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
    const later = randomIds.job(1_795_000_000_001);
    expect(later > made.at(-1)!).toBe(true);
    expect(later).toMatch(/^job_[0-9A-HJKMNP-TV-Z]{10}[0-9A-Za-z]{14}$/);
  });
});
