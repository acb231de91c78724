/** "14:05:30", or "27 Nov 14:05:30" on another day: this terminal's local time. */
export function clockTime(iso: string, now = Date.now()): string {
  const at = new Date(iso);
  const time = at.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const day = new Date(now).toDateString() === at.toDateString() ? '' : `${at.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' })} `;
  return `${day}${time}`;
}

/** "14:05:30 (in 4 min)", "(2 min ago)" or "(now)": this terminal's local time, and how far off it is. */
export function localTime(iso: string, now = Date.now()): string {
  const at = clockTime(iso, now);
  const s = Math.round((new Date(iso).getTime() - now) / 1000);
  // Within half a second either way (API times are whole seconds): neither "in 0 s" nor "0 s ago".
  if (s === 0) return `${at} (now)`;
  const away = Math.abs(s) < 60 ? `${Math.abs(s)} s` : Math.abs(s) < 3600 ? `${Math.round(Math.abs(s) / 60)} min` : `${Math.round(Math.abs(s) / 360) / 10} h`;
  return `${at} (${s >= 0 ? `in ${away}` : `${away} ago`})`;
}
