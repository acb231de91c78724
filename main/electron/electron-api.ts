/**
 * The part of Electron's main-process API that ChatBridge uses, declared here because
 * `electron` is an optional dependency (its binary cannot always be downloaded) and the
 * build must not need its types. `npm run typecheck:electron` checks, where electron is
 * installed, that Electron's own types satisfy these.
 */

import { createRequire } from 'node:module';

export interface IpcEvent {
  senderFrame: { url: string } | null;
}

export interface Debugger {
  attach(protocolVersion?: string): void;
  detach(): void;
  sendCommand(method: string, commandParams?: object, sessionId?: string): Promise<unknown>;
  on(event: 'message', listener: (event: unknown, method: string, params: unknown, sessionId: string) => void): this;
  on(event: 'detach', listener: (event: unknown, reason: string) => void): this;
}

export interface WebContents {
  readonly debugger: Debugger;
  loadURL(url: string): Promise<void>;
  getUserAgent(): string;
  isDestroyed(): boolean;
  close(): void;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  on(event: 'will-navigate', listener: (event: { preventDefault(): void }, url: string) => void): this;
  on(event: 'destroyed', listener: () => void): this;
  on(event: 'render-process-gone', listener: () => void): this;
  on(
    event: 'login',
    listener: (
      event: { preventDefault(): void },
      details: unknown,
      authInfo: { isProxy: boolean; host: string; port: number },
      callback: (username?: string, password?: string) => void,
    ) => void,
  ): this;
}

export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WebContentsView {
  readonly webContents: WebContents;
  setBounds(bounds: Rectangle): void;
}

export interface BrowserWindow {
  readonly webContents: WebContents;
  // Electron's View, of which a WebContentsView is one: parameters stay loose so Electron's own types fit.
  readonly contentView: { addChildView(view: object): void; removeChildView(view: object): void };
  loadURL(url: string): Promise<void>;
  show(): void;
  hide(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  isDestroyed(): boolean;
  close(): void;
  destroy(): void;
  getContentBounds(): Rectangle;
  setTitle(title: string): void;
  on(event: 'close', listener: (event: { preventDefault(): void }) => void): this;
  on(event: 'closed' | 'resize', listener: () => void): this;
}

export interface WebPreferences {
  preload?: string;
  partition?: string;
  contextIsolation?: boolean;
  sandbox?: boolean;
  nodeIntegration?: boolean;
  webSecurity?: boolean;
  webviewTag?: boolean;
  spellcheck?: boolean;
  backgroundThrottling?: boolean;
  devTools?: boolean;
}

/** What `session.setProxy` takes (the fields ChatBridge uses). */
export interface ProxyConfig {
  mode?: 'direct' | 'fixed_servers';
  proxyRules?: string;
  proxyBypassRules?: string;
}

export interface Session {
  setProxy(config: ProxyConfig): Promise<void>;
  setPermissionRequestHandler(handler: (wc: unknown, permission: string, callback: (granted: boolean) => void) => void): void;
  setPermissionCheckHandler(handler: () => boolean): void;
  getUserAgent(): string;
  setUserAgent(userAgent: string): void;
  /** Cookies, storage and cache of the partition: an agent's login. */
  clearStorageData(): Promise<void>;
  clearCache(): Promise<void>;
  /** The partition's folder on disk; null for an in-memory partition. */
  readonly storagePath: string | null;
  on(event: 'will-download', listener: (event: { preventDefault(): void }) => void): this;
}

export interface MenuItemOptions {
  label?: string;
  type?: 'normal' | 'separator' | 'submenu';
  role?: MenuRole;
  submenu?: MenuItemOptions[];
  enabled?: boolean;
  click?: () => void;
}

/** The roles the app's menu uses (Electron has more). */
export type MenuRole =
  | 'appMenu'
  | 'about'
  | 'hide'
  | 'hideOthers'
  | 'unhide'
  | 'quit'
  | 'close'
  | 'undo'
  | 'redo'
  | 'cut'
  | 'copy'
  | 'paste'
  | 'selectAll'
  | 'reload'
  | 'toggleDevTools'
  | 'resetZoom'
  | 'zoomIn'
  | 'zoomOut'
  | 'togglefullscreen'
  | 'minimize'
  | 'windowMenu';

export interface Tray {
  /** A PNG's path (Electron also takes a NativeImage). */
  setImage(image: string): void;
  setToolTip(toolTip: string): void;
  setContextMenu(menu: unknown): void;
  on(event: 'click', listener: () => void): this;
}

export interface ElectronApi {
  app: {
    readonly isPackaged: boolean;
    requestSingleInstanceLock(): boolean;
    whenReady(): Promise<void>;
    quit(): void;
    getPath(name: 'exe'): string;
    getLoginItemSettings(options?: { args?: string[] }): { openAtLogin: boolean };
    setLoginItemSettings(settings: { openAtLogin: boolean; args?: string[] }): void;
    on(event: 'second-instance', listener: () => void): unknown;
    on(event: 'window-all-closed', listener: () => void): unknown;
    on(event: 'before-quit', listener: (event: { preventDefault(): void }) => void): unknown;
    on(event: 'web-contents-created', listener: (event: unknown, contents: WebContents) => void): unknown;
  };
  protocol: {
    registerSchemesAsPrivileged(schemes: { scheme: string; privileges: { standard?: boolean; secure?: boolean; supportFetchAPI?: boolean } }[]): void;
    handle(scheme: string, handler: (request: Request) => Response | Promise<Response>): void;
  };
  session: { defaultSession: Session; fromPartition(partition: string): Session };
  ipcMain: { handle(channel: string, listener: (event: IpcEvent, ...args: unknown[]) => Promise<unknown>): void };
  BrowserWindow: new (options: { width?: number; height?: number; show?: boolean; title?: string; webPreferences?: WebPreferences }) => BrowserWindow;
  WebContentsView: new (options: { webPreferences?: WebPreferences }) => WebContentsView;
  Tray: new (image: string) => Tray;
  // Electron's Menu; its instances stay opaque so Electron's own types fit.
  Menu: { buildFromTemplate(template: MenuItemOptions[]): object; setApplicationMenu(menu: object | null): void };
}

/**
 * Electron's module, in its main process. Required synchronously (Electron's main process
 * has CommonJS `require`) so that what must happen before `ready` does; and by a name the
 * build does not resolve, so it needs no electron types (`npm run typecheck:electron`).
 */
export function electronModule(): ElectronApi {
  return createRequire(import.meta.url)('electron') as ElectronApi;
}
