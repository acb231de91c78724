import type { ConnectOverCDPTransport } from 'playwright-core';

/**
 * A page's DevTools session as Electron's `webContents.debugger` offers it: commands go to
 * the page itself when `sessionId` is empty, or to one of the page's own auto-attached
 * children (frames, workers) by their session id.
 */
export interface PageDebugger {
  sendCommand(method: string, params?: object, sessionId?: string): Promise<unknown>;
  /** Every CDP event; `sessionId` is '' for the page's own. */
  onMessage(listener: (method: string, params: unknown, sessionId: string) => void): void;
  /** The session ended: the page closed, crashed, or DevTools took it over. */
  onDetach(listener: (reason: string) => void): void;
  detach(): void;
}

type Incoming = { id: number; method: string; params?: Record<string, unknown>; sessionId?: string };

/** Playwright's session for the page: a name of ours, since the debugger's root has none. */
const PAGE_SESSION = 'chatbridge-page';
/** A browser-level session Playwright opens to attach further sessions to the page (newCDPSession). */
const BROWSER_SESSION = 'chatbridge-browser';
/** The one browser context Playwright sees; an agent's partition is its whole browser. */
const CONTEXT_ID = 'chatbridge-context';

/**
 * Lets `chromium.connectOverCDP(transport)` drive one page through a debugger attached to
 * that page, with no debugging port. Playwright expects a browser-level endpoint, so this
 * answers the few browser-level commands it sends while connecting (version, auto-attach,
 * download behaviour) itself, announces the page as an attached target, and forwards
 * everything addressed to the page or its children to the debugger.
 *
 * Order matters to Playwright (a navigation's reply before the events it sets off). A
 * reply reaches us through the debugger's promise, an event synchronously, so this relies
 * on the debugger dispatching each protocol message as its own task, as Electron does
 * (the microtasks of one message run before the next message arrives).
 */
export class DebuggerTransport implements ConnectOverCDPTransport {
  onmessage?: (message: object) => void;
  onclose?: (reason?: string) => void;
  private closed = false;
  /** Sessions of the page's own that Playwright opened beside its own (newCDPSession: the page helpers' world, the screencast). */
  private readonly pageSessions = new Set<string>();
  private sessionsMade = 0;

  constructor(
    private readonly debug: PageDebugger,
    /** What `Browser.getVersion` reports: Playwright reads the version and whether it is headless. */
    private readonly version: { product: string; userAgent: string },
  ) {
    debug.onMessage((method, params, sessionId) => {
      if (sessionId) return this.emit({ method, params, sessionId });
      // The debugger has one session with the page: each of ours hears all of its events.
      for (const session of [PAGE_SESSION, ...this.pageSessions]) this.emit({ method, params, sessionId: session });
    });
    debug.onDetach((reason) => this.finish(reason));
  }

  send(message: object): void {
    const m = message as Incoming;
    void this.answer(m).then(
      (result) => this.emit({ id: m.id, sessionId: m.sessionId, result }),
      (error: unknown) => this.emit({ id: m.id, sessionId: m.sessionId, error: { code: -32000, message: (error as Error).message } }),
    );
  }

  close(): void {
    if (this.closed) return;
    this.debug.detach();
    this.finish('closed');
  }

  private async answer(m: Incoming): Promise<unknown> {
    if (m.sessionId === PAGE_SESSION || this.pageSessions.has(m.sessionId!)) return this.forPage(m.method, m.params);
    if (m.sessionId && m.sessionId !== BROWSER_SESSION) return this.debug.sendCommand(m.method, m.params, m.sessionId);
    return this.forBrowser(m.method, m.params);
  }

  private async forPage(method: string, params: Record<string, unknown> | undefined): Promise<unknown> {
    // Electron crashes on some device-metrics overrides; the view's own size is the viewport anyway.
    if (method === 'Emulation.setDeviceMetricsOverride' || method === 'Emulation.clearDeviceMetricsOverride') return {};
    return this.debug.sendCommand(method, params);
  }

  private async forBrowser(method: string, params: Record<string, unknown> | undefined): Promise<unknown> {
    switch (method) {
      case 'Browser.getVersion':
        return { protocolVersion: '1.3', product: this.version.product, revision: '', userAgent: this.version.userAgent, jsVersion: '' };
      case 'Target.setAutoAttach':
        // Announced after the reply, as a browser does; Playwright then initialises the page.
        void this.announcePage();
        return {};
      case 'Target.getTargetInfo':
        return { targetInfo: { targetId: 'browser', type: 'browser', title: '', url: '', attached: true, canAccessOpener: false } };
      case 'Browser.setDownloadBehavior':
        // Downloads stay the view's own business (its session denies them).
        return {};
      case 'Target.attachToBrowserTarget':
        return { sessionId: BROWSER_SESSION };
      case 'Target.attachToTarget': {
        // Another session with the page (newCDPSession): the same debugger under a name of its own.
        const { targetInfo } = (await this.debug.sendCommand('Target.getTargetInfo')) as { targetInfo: { targetId: string } };
        if (params?.targetId !== targetInfo.targetId) throw new Error('Only the agent view\'s own page can be attached to');
        const sessionId = `${PAGE_SESSION}-${++this.sessionsMade}`;
        this.pageSessions.add(sessionId);
        return { sessionId };
      }
      case 'Target.detachFromTarget':
        if (params?.sessionId === PAGE_SESSION) return {};
        // What another session enabled stays enabled: Playwright's own session uses the same domains.
        if (this.pageSessions.delete(params?.sessionId as string)) return {};
        return this.debug.sendCommand(method, params);
      default:
        // New pages, contexts and closing come from the app's views, never from Playwright.
        throw new Error(`${method} is not available on an embedded agent view`);
    }
  }

  private async announcePage(): Promise<void> {
    try {
      const { targetInfo } = (await this.debug.sendCommand('Target.getTargetInfo')) as { targetInfo: Record<string, unknown> };
      this.emit({
        method: 'Target.attachedToTarget',
        params: { sessionId: PAGE_SESSION, targetInfo: { ...targetInfo, attached: true, browserContextId: CONTEXT_ID }, waitingForDebugger: false },
      });
    } catch (error) {
      this.finish(`the page did not answer: ${(error as Error).message}`);
    }
  }

  private emit(message: object): void {
    if (!this.closed) this.onmessage?.(message);
  }

  private finish(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.(reason);
  }
}
