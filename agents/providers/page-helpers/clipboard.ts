/**
 * In the page: the page's clipboard writes intercepted, so the copy button hands us the
 * provider's own Markdown without ever touching the user's real clipboard.
 */
import type { Helpers } from './types.js';

export function addClipboard(h: Helpers): void {
  h.clipboard = null;
  h.clearClipboard = () => {
    h.clipboard = null;
  };

  // Never let the page reach the user's real clipboard: keep what it writes for ChatBridge.
  const clipboard = navigator.clipboard;
  if (clipboard) {
    const keep = (text: string) => {
      h.clipboard = text;
      return Promise.resolve();
    };
    Object.defineProperty(clipboard, 'writeText', { value: keep, configurable: true });
    Object.defineProperty(clipboard, 'write', {
      value: async (items: ClipboardItem[]) => {
        for (const item of items) {
          if (item.types.includes('text/plain')) return keep(await (await item.getType('text/plain')).text());
        }
      },
      configurable: true,
    });
  }
  document.addEventListener(
    'copy',
    (event) => {
      // Copy buttons built on execCommand('copy') fill the event's data in their own handler.
      queueMicrotask(() => {
        const text = event.clipboardData?.getData('text/plain');
        if (text) h.clipboard = text;
      });
    },
    true,
  );
}
