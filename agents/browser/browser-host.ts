import type { Page } from 'playwright-core';

/** One agent's browser page, in its own profile. */
export interface BrowserSession {
  page: Page;
  /** Called once if the browser or the page goes away underneath us. */
  onLost(listener: () => void): void;
  close(): Promise<void>;
}

/**
 * Where agents' pages come from: the headless Chromium host (here) or the Electron host
 * (the desktop app's WebContentsViews), behind one interface.
 */
export interface BrowserHost {
  open(agentId: string): Promise<BrowserSession>;
}
