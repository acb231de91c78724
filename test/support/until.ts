/** Polls `check` (real time) until it returns a truthy value; fails after `ms`. */
export async function until<T>(check: () => T | Promise<T>, ms = 5_000, what = 'condition'): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
