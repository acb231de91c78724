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
