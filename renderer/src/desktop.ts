/**
 * The desktop app's bridge (preload/index.cts), as the dashboard sees it: present in the
 * Electron window, absent in a plain browser against `chatbridge serve`.
 */
import type { DesktopBridge } from '../../preload/index.cjs';

export type { DesktopBridge };

declare global {
  interface Window {
    chatbridgeDesktop?: DesktopBridge;
  }
}

/** The bridge in the desktop app, null in a plain browser. */
export function desktopBridge(): DesktopBridge | null {
  return typeof window !== 'undefined' && window.chatbridgeDesktop ? window.chatbridgeDesktop : null;
}
