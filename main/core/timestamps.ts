export const DAY_MS = 86_400_000;

/** The API's two timestamp formats (decisions.md): Profile F's whole seconds, Profile H's milliseconds. */

/**
 * Whole seconds already written out: a job's times are written again at every read of it
 * (a script polls the same job), and making a Date and its ISO string for each was the
 * largest share of the service's own CPU in a read (bench/submit-and-get.ts). Bounded: a
 * thousand seconds, then forgotten all at once.
 */
const written = new Map<number, string>();

/** ISO 8601 UTC with whole seconds: 2026-11-21T10:00:00Z. */
export function timestamp(ms: number): string {
  const second = Math.floor(ms / 1000);
  let text = written.get(second);
  if (text === undefined) {
    if (written.size >= 1_000) written.clear();
    text = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
    written.set(second, text);
  }
  return text;
}

/** ISO 8601 UTC with milliseconds: 2026-11-21T10:00:00.123Z. */
export function timestampMs(ms: number): string {
  return new Date(ms).toISOString();
}

/** `timestamp`, or null for a moment that has not come (an unset deadline, an unfinished attempt). */
export function timestampOrNull(ms: number | null): string | null {
  return ms === null ? null : timestamp(ms);
}
