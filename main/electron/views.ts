import { rm } from 'node:fs/promises';
import type { PageDebugger } from './cdp-transport.js';
import type { BrowserWindow, Debugger, ElectronApi, Session, WebContentsView } from './electron-api.js';
import type { LoginWindow } from '../core/agent-control.js';
import { Listeners } from '../core/listeners.js';
import type { ProxySetting } from '../core/proxy.js';
import { agentProxy } from './agent-proxy.js';
import { agentPartition, agentViewPreferences } from './security.js';
import type { AgentView, AgentViews } from './view-host.js';

const SIZE = { width: 1280, height: 900 };

/**
 * The agents' WebContentsViews. Each lives in its own `persist:agent-<id>` partition and,
 * when nobody watches it, in a hidden window of its own: a view must sit in a window to
 * render. A login or watch window borrows the view and gives it back when closed.
 */
export class ElectronViews implements AgentViews {
  private readonly live = new Map<string, { view: WebContentsView; home: BrowserWindow; destroy(): void }>();
  private readonly configured = new Set<string>();

  constructor(private readonly electron: ElectronApi) {}

  async create(agentId: string, proxy: ProxySetting | null): Promise<AgentView> {
    // A restart after a crash: the dead view and its window go first.
    this.live.get(agentId)?.destroy();
    const session = this.electron.session.fromPartition(agentPartition(agentId));
    this.configure(session, agentId);
    // Set at every start: a changed proxy restarts the agent.
    const egress = agentProxy(proxy);
    await session.setProxy(egress.config);
    const home = new this.electron.BrowserWindow({ ...SIZE, show: false, title: `ChatBridge agent ${agentId}` });
    const view = new this.electron.WebContentsView({ webPreferences: agentViewPreferences(agentId) });
    home.contentView.addChildView(view);
    view.setBounds({ x: 0, y: 0, ...SIZE });
    const contents = view.webContents;
    // Provider pages never open windows of the app; their links stay in the agent's page.
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('login', (event, _details, authInfo, callback) => {
      const credentials = egress.credentials(authInfo);
      if (!credentials) return;
      event.preventDefault();
      callback(credentials.username, credentials.password);
    });
    // A view that never navigated leaves debugger commands unanswered.
    await contents.loadURL('about:blank');
    contents.debugger.attach('1.3');
    const destroy = () => {
      if (this.live.get(agentId)?.view === view) this.live.delete(agentId);
      if (!contents.isDestroyed()) contents.close();
      if (!home.isDestroyed()) home.destroy();
    };
    this.live.set(agentId, { view, home, destroy });
    return {
      debugger: pageDebugger(contents.debugger),
      version: { product: `Chrome/${process.versions.chrome ?? '0'}`, userAgent: contents.getUserAgent() },
      onGone: (listener) => {
        contents.on('destroyed', listener);
        contents.on('render-process-gone', listener);
      },
      destroy,
    };
  }

  /** A window that shows the agent's page to the person (to log in, or to watch it work). */
  window(agentId: string, title: string): LoginWindow {
    const entry = this.live.get(agentId);
    if (!entry) throw new Error("The agent's page is not open yet; try again in a moment.");
    const { view, home } = entry;
    const win = new this.electron.BrowserWindow({ ...SIZE, show: false, title });
    const fit = () => {
      const { width, height } = win.getContentBounds();
      view.setBounds({ x: 0, y: 0, width, height });
    };
    home.contentView.removeChildView(view);
    win.contentView.addChildView(view);
    win.on('resize', fit);
    const closed = new Listeners();
    win.on('closed', () => {
      // Back home at the size the agent works at, unless the agent went away meanwhile.
      if (this.live.get(agentId)?.view === view && !home.isDestroyed()) {
        home.contentView.addChildView(view);
        view.setBounds({ x: 0, y: 0, ...SIZE });
      }
      closed.emit();
    });
    return {
      show: () => {
        fit();
        win.show();
        win.focus();
      },
      close: () => {
        if (!win.isDestroyed()) win.close();
      },
      onClosed: (listener) => void closed.on(listener),
    };
  }

  /**
   * The agent is removed: its login goes with it. The partition's data is cleared through
   * the session (what Chromium holds open), then its folder is deleted, so no cookie,
   * cache or history of the account is left on disk.
   */
  async forget(agentId: string): Promise<void> {
    this.live.get(agentId)?.destroy();
    const session = this.electron.session.fromPartition(agentPartition(agentId));
    await session.clearStorageData();
    await session.clearCache();
    if (session.storagePath) await rm(session.storagePath, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }

  /** Once per partition: no permission is ever granted, no download lands, and no "Electron" in the user agent. */
  private configure(session: Session, agentId: string): void {
    if (this.configured.has(agentId)) return;
    this.configured.add(agentId);
    session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
    session.setPermissionCheckHandler(() => false);
    session.on('will-download', (event) => event.preventDefault());
    // Sites treat an Electron user agent as an unsupported browser.
    session.setUserAgent(session.getUserAgent().replace(/ (Electron|chatbridge)\/\S+/gi, ''));
  }
}

function pageDebugger(d: Debugger): PageDebugger {
  return {
    sendCommand: (method, params, sessionId) => d.sendCommand(method, params, sessionId),
    onMessage: (listener) => void d.on('message', (_event, method, params, sessionId) => listener(method, params, sessionId)),
    onDetach: (listener) => void d.on('detach', (_event, reason) => listener(reason)),
    detach: () => d.detach(),
  };
}
