/**
 * When a webhook is attempted (api.md "Delivery rules", decisions.md): five attempts, the
 * first at once, then after 30 s, 5 min, 30 min and 2 h. Then delivery stops; the job stays
 * readable with GET.
 */
export const RETRY_DELAYS_MS: readonly number[] = [30_000, 300_000, 1_800_000, 7_200_000];

export const ATTEMPTS_PER_ROUND = RETRY_DELAYS_MS.length + 1;

/**
 * When the next attempt is due after `made` attempts of a round failed, the last of them
 * ending at `endedAt`; null when the round is over. The delays count from the end of the
 * failed attempt, so a receiver that timed out still gets its full pause.
 */
export function nextAttemptAt(made: number, endedAt: number): number | null {
  const delay = RETRY_DELAYS_MS[made - 1];
  return delay === undefined ? null : endedAt + delay;
}
