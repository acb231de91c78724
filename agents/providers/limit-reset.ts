import type { LimitReset } from './site.js';

/** When the limit a notice names lifts (epoch ms), read the way the pack says; null if it does not say. */
export function limitLiftsAt(how: LimitReset, text: string, now: Date): number | null {
  if (how === 'clock') return parseClockTime(text, now);
  if (how === 'claude') return parseClaudeLimitReset(text, now);
  return null;
}

/**
 * Reads "try again after 10:42 PM" / "until 22:42" from a usage-limit banner: the next
 * such wall-clock time after `now`, in the machine's time zone (the page shows local time).
 */
export function parseClockTime(text: string, now: Date): number | null {
  const m = /(\d{1,2}):(\d{2})\s*(AM|PM)?/i.exec(text);
  if (!m) return null;
  let hours = Number(m[1]);
  const minutes = Number(m[2]);
  const meridiem = m[3]?.toUpperCase();
  if (meridiem === 'PM' && hours < 12) hours += 12;
  if (meridiem === 'AM' && hours === 12) hours = 0;
  if (hours > 23 || minutes > 59) return null;
  const at = new Date(now);
  at.setHours(hours, minutes, 0, 0);
  if (at.getTime() <= now.getTime()) at.setDate(at.getDate() + 1);
  return at.getTime();
}

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/**
 * When Claude's limit notice says the limit lifts: "until 10:00 AM", "resets 3pm", "at 15:00",
 * "until tomorrow at 9 AM", "resets Thu 9:00 AM" (weekly limits). The next such time after
 * `now`, in the machine's time zone (the page shows local time); null if it does not say.
 */
export function parseClaudeLimitReset(text: string, now: Date): number | null {
  // A clock time with AM/PM (minutes optional), or a 24-hour h:mm. The AM/PM letters may run
  // into the next word in textContent ("10:00 AMUpgrade") but not into lowercase ("3 amazing").
  const m = /(?<![\d:])(\d{1,2})(?::(\d{2}))?\s?([AaPp])\.?[Mm]\.?(?![a-z])|(?<![\d:])(\d{1,2}):(\d{2})(?![\d:])/.exec(text);
  if (!m) return null;
  let hours = Number(m[1] ?? m[4]);
  const minutes = Number(m[2] ?? m[5] ?? 0);
  const meridiem = m[3]?.toLowerCase();
  if (meridiem) {
    if (hours < 1 || hours > 12) return null;
    hours = (hours % 12) + (meridiem === 'p' ? 12 : 0);
  }
  if (hours > 23 || minutes > 59) return null;
  const before = text.slice(0, m.index);
  const weekday = /\b(sun|mon|tue|wed|thu|fri|sat)[a-z]*\.?,?\s*(at\s*)?$/i.exec(before)?.[1];
  const at = new Date(now);
  at.setHours(hours, minutes, 0, 0);
  if (weekday) {
    at.setDate(at.getDate() + ((WEEKDAYS.indexOf(weekday.toLowerCase()) - at.getDay() + 7) % 7));
    if (at.getTime() <= now.getTime()) at.setDate(at.getDate() + 7);
  } else if (/\btomorrow\b/i.test(before)) {
    at.setDate(at.getDate() + 1);
  } else if (at.getTime() <= now.getTime()) {
    at.setDate(at.getDate() + 1);
  }
  return at.getTime();
}
