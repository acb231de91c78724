/** `chatbridge agents list` says when an agent looks again in the terminal's own time, and how far off that is. */
import { describe, expect, it } from 'vitest';
import { localTime } from '../../main/cli/local-time.js';

describe('times for a person at a terminal', () => {
  it('gives the local clock time and the distance from now', () => {
    const now = Date.UTC(2026, 10, 23, 12, 0, 0);
    const at = (ms: number) => new Date(now + ms).toISOString();
    const clock = (ms: number) => new Date(now + ms).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
    expect(localTime(at(14_000), now)).toBe(`${clock(14_000)} (in 14 s)`);
    expect(localTime(at(4 * 60_000 + 20_000), now)).toBe(`${clock(260_000)} (in 4 min)`);
    expect(localTime(at(-90_000), now)).toBe(`${clock(-90_000)} (2 min ago)`);
    expect(localTime(at(3 * 3_600_000), now)).toMatch(/\(in 3 h\)$/);
    // A whole-second API time a moment ago rounds to neither "in 0 s" nor "0 s ago".
    expect(localTime(at(-400), now)).toBe(`${clock(-400)} (now)`);
  });
});
