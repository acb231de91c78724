import { describe, it } from 'vitest';

/**
 * A block of tests that shares nothing with the other blocks of its file (its own simulated
 * site, service and browser contexts) and so runs beside them: an end-to-end block spends
 * most of its time waiting on pages and streamed answers. vitest's `maxConcurrency`
 * (vitest.config.ts) bounds how many run at once.
 *
 * A test inside inherits "concurrent" from the block: declare it with `inOrder` (vitest's
 * `it.sequential`) when the block's tests share its agents and must take turns (or wrap them
 * in a `describe.sequential`), and use the test context's `expect`, as tests that run beside
 * others must.
 */
export function describeBeside(name: string, body: () => void): void {
  describe(name, { concurrent: true }, body);
}

/** A test that runs after the one before it in its block, even in a block that runs beside others. */
export const inOrder = it.sequential;
