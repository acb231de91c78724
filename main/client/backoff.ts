/**
 * How long to wait before retry number `retry` (0 for the first): api.md "Errors" rule 3,
 * exponential from 2 s, doubling, capped at 60 s, with "equal jitter" (a random point in
 * the second half of the step) so that clients refused together do not return together.
 */
export const BACKOFF_BASE_MS = 2_000;
export const BACKOFF_CAP_MS = 60_000;

export function backoffMs(retry: number, random: () => number): number {
  const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry);
  return Math.round(step / 2 + (step / 2) * random());
}

/**
 * `Retry-After` in milliseconds when the answer carries one (seconds or an HTTP date),
 * else undefined. When it is there, it is the wait: the service knows when it frees.
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1_000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
