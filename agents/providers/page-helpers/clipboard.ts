/**
 * In the page: a copy made with execCommand('copy') caught from its copy event. A copy
 * through the asynchronous clipboard API (navigator.clipboard) is caught in the page's own
 * world, for the moment of the press only (copy-catch.ts).
 */
import type { Helpers } from './types.js';

export function addClipboard(h: Helpers): void {
  h.clipboard = null;
  h.clearClipboard = () => {
    h.clipboard = null;
  };
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
