import type { Page } from 'playwright-core';
import { Listeners } from './listeners.js';
import type { ProxySetting } from './proxy.js';

/** One agent's browser page, in a context (or partition) of its own. */
export interface BrowserSession {
  page: Page;
  /** Called once if the browser or the page goes away underneath us. */
  onLost(listener: () => void): void;
  close(): Promise<void>;
}

/** How an agent's browser is opened. */
export interface OpenOptions {
  /** Its egress; null (or absent) for a direct connection. */
  proxy?: ProxySetting | null;
  /** The origin of the agent's site, whose local storage a login kept in an older layout carries over. */
  siteOrigin?: string;
}

/**
 * Where agents' pages come from: the headless Chromium host (here) or the Electron host
 * (the desktop app's WebContentsViews), behind one interface.
 */
export interface BrowserHost {
  open(agentId: string, options?: OpenOptions): Promise<BrowserSession>;
  /** After the agent was removed (its session closed): deletes its profile, so its login is gone. */
  forget(agentId: string): Promise<void>;
}

/**
 * Tells listeners once that a session was lost (browser gone, page crashed), unless the
 * session was closed on purpose first: the shared bookkeeping of every host.
 */
export function sessionLoss(): { fire(): void; onLost(listener: () => void): void; silence(): void } {
  const lost = new Listeners();
  let over = false;
  return {
    fire() {
      if (over) return;
      over = true;
      lost.emit();
      lost.clear();
    },
    onLost: (listener) => void lost.on(listener),
    silence() {
      over = true;
    },
  };
}
