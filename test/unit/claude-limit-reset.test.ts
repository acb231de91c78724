import { describe, expect, it } from 'vitest';
import { parseClaudeLimitReset } from '../../agents/providers/limit-reset.js';

describe("Claude's usage-limit reset time", () => {
  // A Wednesday, 08:30 local time.
  const now = new Date(2026, 8, 16, 8, 30);
  const at = (days: number, hours: number, minutes = 0) => new Date(2026, 8, 16 + days, hours, minutes).getTime();

  it('reads the free-plan notice', () => {
    expect(parseClaudeLimitReset('You are out of free messages until 10:00 AM', now)).toBe(at(0, 10));
    expect(parseClaudeLimitReset('You are out of free messages until 10:00 AMUpgrade', now)).toBe(at(0, 10));
    expect(parseClaudeLimitReset('You are out of free messages until 8:00 AM', now)).toBe(at(1, 8));
  });

  it('reads hours without minutes, 24-hour times, tomorrow and weekdays', () => {
    expect(parseClaudeLimitReset('5-hour limit reached ∙ resets 3pm', now)).toBe(at(0, 15));
    expect(parseClaudeLimitReset('Usage limit reached. Your limit will reset at 12 a.m.', now)).toBe(at(1, 0));
    expect(parseClaudeLimitReset('limit reached until 21:45', now)).toBe(at(0, 21, 45));
    expect(parseClaudeLimitReset('out of free messages until tomorrow at 9 AM', now)).toBe(at(1, 9));
    expect(parseClaudeLimitReset('Weekly limit reached ∙ resets Thu 9:00 AM', now)).toBe(at(1, 9));
    expect(parseClaudeLimitReset('Weekly limit reached ∙ resets Wed 8:00 AM', now)).toBe(at(7, 8));
  });

  it('says nothing when the notice gives no time', () => {
    expect(parseClaudeLimitReset('5-hour limit reached', now)).toBeNull();
    expect(parseClaudeLimitReset('Message limit reached for Claude Opus', now)).toBeNull();
    expect(parseClaudeLimitReset('until 13 PM', now)).toBeNull();
  });
});
