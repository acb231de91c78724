export const DAY_MS = 86_400_000;

/** The API's two timestamp formats (decisions.md): Profile F's whole seconds, Profile H's milliseconds. */

/** ISO 8601 UTC with whole seconds: 2026-11-21T10:00:00Z. */
export function timestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** ISO 8601 UTC with milliseconds: 2026-11-21T10:00:00.123Z. */
export function timestampMs(ms: number): string {
  return new Date(ms).toISOString();
}

/** `timestamp`, or null for a moment that has not come (an unset deadline, an unfinished attempt). */
export function timestampOrNull(ms: number | null): string | null {
  return ms === null ? null : timestamp(ms);
}
