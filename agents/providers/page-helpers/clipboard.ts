/**
 * In the page: what the page copies, kept for ChatBridge. A copy through the clipboard API
 * arrives through the copy channel while the hook in the page's world is set (copy-hook.ts);
 * a copy made with execCommand('copy') is caught from its copy event.
 */
import type { Helpers } from './types.js';

export function addClipboard(h: Helpers): void {
  h.clipboard = null;
  h.clearClipboard = () => {
    h.clipboard = null;
  };
  let channel: Element | null = null;
  h.copyChannel = () => {
    if (!channel) {
      // In no document: only the hook, handed it by DevTools, can reach it.
      channel = document.createElement('span');
      channel.addEventListener('chatbridge-copy', (event) => {
        h.clipboard = String((event as CustomEvent<string>).detail);
      });
    }
    return channel;
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
