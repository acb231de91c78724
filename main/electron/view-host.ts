import { chromium, type Browser } from 'playwright-core';
import { sessionLoss, type BrowserHost, type BrowserSession, type OpenOptions } from '../core/browser-host.js';
import type { ProxySetting } from '../core/proxy.js';
import { DebuggerTransport, type PageDebugger } from './cdp-transport.js';

/** One agent's WebContentsView, loaded (so the debugger answers) and with its debugger attached. */
export interface AgentView {
  debugger: PageDebugger;
  /** The embedded Chromium's own product and user agent, for `Browser.getVersion`. */
  version: { product: string; userAgent: string };
  /** The view's page crashed or was destroyed. */
  onGone(listener: () => void): void;
  destroy(): void;
}

/** Makes agent views; the Electron side (views.ts) creates them in `persist:agent-<id>`. */
export interface AgentViews {
  /** With the agent's proxy as its partition's egress (null: direct). */
  create(agentId: string, proxy: ProxySetting | null): Promise<AgentView>;
  /** Clears the agent's partition (its cookies: its login). */
  forget(agentId: string): Promise<void>;
}

/**
 * The desktop's browser host: each agent's page is a WebContentsView of the app, driven by
 * Playwright through the view's debugger (cdp-transport.ts), so no debugging port exists.
 */
export class ViewHost implements BrowserHost {
  constructor(private readonly views: AgentViews) {}

  async open(agentId: string, { proxy = null }: OpenOptions = {}): Promise<BrowserSession> {
    const view = await this.views.create(agentId, proxy);
    let browser: Browser;
    try {
      browser = await chromium.connectOverCDP(new DebuggerTransport(view.debugger, view.version));
    } catch (error) {
      view.destroy();
      throw error;
    }
    const context = browser.contexts()[0]!;
    const page = context.pages()[0] ?? (await context.waitForEvent('page'));
    const loss = sessionLoss();
    view.onGone(loss.fire);
    browser.on('disconnected', loss.fire);
    page.on('crash', loss.fire);
    return {
      page,
      onLost: loss.onLost,
      close: async () => {
        loss.silence();
        await browser.close().catch(() => {});
        view.destroy();
      },
    };
  }

  forget(agentId: string): Promise<void> {
    return this.views.forget(agentId);
  }
}
