/**
 * The one hook ChatBridge puts in the page's own world, and only while it presses a copy
 * control: the provider's copy button hands its Markdown to `navigator.clipboard.writeText`
 * (or `write`) in the page's world, the one place that sees it, and letting it through would
 * overwrite the person's real clipboard. So for the press, and until the text arrives or
 * COPY_WAIT_MS pass, those two are own properties of the page's `navigator.clipboard` that
 * keep the text; then they are removed, leaving the page's clipboard as it was. What is kept
 * is held by DevTools for ChatBridge, never in a global. (A copy made with execCommand is
 * caught from its copy event, in the helpers' own world: clipboard.ts.)
 */
import type { JSHandle, Page } from 'playwright-core';

interface Hook {
  /** The text written since the hook was set, once there is one; null after `ms`. */
  next(ms: number): Promise<string | null>;
  undo(): void;
}

/** Runs `press` with the page's clipboard writes caught; `caught(ms)` waits up to `ms` for what they wrote. */
export async function withCopyCatch<T>(page: Page, press: (caught: (ms: number) => Promise<string | null>) => Promise<T>): Promise<T> {
  const hook: JSHandle<Hook> = await page.evaluateHandle(() => {
    const clipboard = navigator.clipboard;
    let text: string | null = null;
    let arrived: (() => void) | null = null;
    const keep = (t: string) => {
      text = String(t);
      arrived?.();
      return Promise.resolve();
    };
    // What the page itself set on the object (normally nothing), to put back afterwards.
    const own = { writeText: Object.getOwnPropertyDescriptor(clipboard, 'writeText'), write: Object.getOwnPropertyDescriptor(clipboard, 'write') };
    Object.defineProperty(clipboard, 'writeText', { value: keep, configurable: true, writable: true });
    Object.defineProperty(clipboard, 'write', {
      value: async (items: ClipboardItem[]) => {
        for (const item of items) {
          if (item.types.includes('text/plain')) return keep(await (await item.getType('text/plain')).text());
        }
      },
      configurable: true,
      writable: true,
    });
    return {
      next: (ms: number) =>
        text !== null
          ? Promise.resolve(text)
          : new Promise<string | null>((resolve) => {
              const timer = setTimeout(() => resolve(text), ms);
              arrived = () => {
                clearTimeout(timer);
                resolve(text);
              };
            }),
      undo: () => {
        for (const name of ['writeText', 'write'] as const) {
          const had = own[name];
          if (had) Object.defineProperty(clipboard, name, had);
          else delete (clipboard as unknown as Record<string, unknown>)[name];
        }
      },
    };
  });
  try {
    return await press((ms) => hook.evaluate((h, wait) => h.next(wait), ms));
  } finally {
    await hook.evaluate((h) => h.undo()).catch(() => {});
    await hook.dispose().catch(() => {});
  }
}
