/**
 * In the page: what the page copies, kept for ChatBridge. A copy through the clipboard API
 * arrives through the copy channel while the hook in the page's world is set (copy-hook.ts);
 * a copy made with execCommand('copy') is caught from its copy event. A press waits for it
 * as it comes (`copied`), not by looking again on a timer. The hook is set from Node, or from
 * here (`armCopyHook`) in a call that has Copy pressed next.
 */
import type { Helpers } from './types.js';

export function addClipboard(h: Helpers): void {
  h.clipboard = null;
  h.clearClipboard = () => {
    h.clipboard = null;
  };
  /** Who waits for the next copy. */
  const waiting = new Set<(text: string) => void>();
  const keep = (text: string) => {
    h.clipboard = text;
    if (text === '') return;
    for (const wake of waiting) wake(text);
    waiting.clear();
  };
  h.copied = (ms) => {
    const kept = h.clipboard;
    if (kept) return Promise.resolve(kept);
    return new Promise((resolve) => {
      const wake = (text: string) => {
        window.clearTimeout(timer);
        resolve(text);
      };
      const timer = window.setTimeout(() => {
        waiting.delete(wake);
        resolve(null);
      }, ms);
      waiting.add(wake);
    });
  };
  let channel: Element | null = null;
  // Heard by the hook's listeners in the page's own world (copy-hook.ts), which cancel it: set.
  h.armCopyHook = () => channel !== null && !channel.dispatchEvent(new Event('chatbridge-arm', { cancelable: true }));
  h.copyChannel = () => {
    if (!channel) {
      // In no document: only the hook, handed it by DevTools, can reach it.
      channel = document.createElement('span');
      channel.addEventListener('chatbridge-copy', (event) => {
        keep(String((event as CustomEvent<string>).detail));
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
        if (text) keep(text);
      });
    },
    true,
  );
}
