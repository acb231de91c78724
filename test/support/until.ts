/**
 * Polls `check` (real time) until it returns a truthy value; fails after `ms`. The default is
 * generous: on a loaded slow machine (CI's, 2026-11-29) a page or a process takes several
 * times as long as on a quiet one, and a wait costs only what the condition takes.
 */
export async function until<T>(check: () => T | Promise<T>, ms = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
