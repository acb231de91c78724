/**
 * The desktop app's main process: one instance, the service, the agents in WebContentsViews
 * (or Chrome, per agent), the tray, the dashboard window and its IPC. Wiring only: the
 * decisions live in the plain modules beside it, tested without Electron.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ChromiumHost } from '../../agents/browser/chromium-host.js';
import { findBrowser } from '../../agents/browser/find-browser.js';
import { AgentRuntime } from '../../agents/runtime/agent-runtime.js';
import { openSites } from '../../agents/runtime/start-agents.js';
import { resolveDataDir } from '../core/data-dir.js';
import { EVERY_ACCOUNT } from '../core/jobs.js';
import { PACKAGE_ROOT } from '../core/package-root.js';
import { adminToken } from '../core/runtime-files.js';
import { noAccountNotice } from '../service/first-run.js';
import { Service } from '../service/service.js';
import { buildServer } from '../api/server.js';
import { appMenuTemplate } from './app-menu.js';
import { dashboardHandler } from './dashboard-protocol.js';
import { electronModule, type BrowserWindow } from './electron-api.js';
import { HostChoices, HostRouter } from './host-choice.js';
import { CHANNELS, ipcRouter, type Handlers } from './ipc-contract.js';
import { HIDDEN_FLAG, xdgAutostart, type LoginItem } from './login-item.js';
import type { LoginWindow } from '../core/agent-control.js';
import { RuntimeControl } from '../../agents/runtime/runtime-control.js';
import { APP_SCHEME, dashboardPreferences, DASHBOARD_URL, isDashboardUrl } from './security.js';
import { startTray } from './tray.js';
import { feedTray } from './tray-feed.js';
import type { TrayAction } from './tray-model.js';
import { ViewHost } from './view-host.js';
import { ElectronViews } from './views.js';
import { DEFAULT_PORT } from '../core/loopback.js';

const electron = electronModule();
const { app } = electron;

// Before `ready`: the dashboard's origin is a standard, secure scheme with fetch.
electron.protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

if (!app.requestSingleInstanceLock()) {
  // The running instance hears 'second-instance' and shows its window.
  app.quit();
} else {
  start().catch((error: unknown) => {
    process.stderr.write(`chatbridge: ${(error as Error).message}\n`);
    app.quit();
  });
}

async function start(): Promise<void> {
  // In development Electron's argv is [electron, entry, ...]; packaged it is [app, ...].
  const { values } = parseArgs({
    args: process.argv.slice(app.isPackaged ? 1 : 2),
    options: { 'data-dir': { type: 'string' }, port: { type: 'string' }, hidden: { type: 'boolean' } },
    strict: false,
  });
  const dataDir = resolveDataDir(typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined);
  const port = typeof values.port === 'string' ? Number(values.port) : DEFAULT_PORT;
  await app.whenReady();
  // Whatever this process and its browsers write (partitions, profiles, logs) is the owner's only.
  process.umask(0o077);

  electron.Menu.setApplicationMenu(electron.Menu.buildFromTemplate(appMenuTemplate(app.isPackaged, process.platform)));
  // Every page of the app: no new windows; the dashboard's own page may not navigate away.
  app.on('web-contents-created', (_event, contents) => contents.setWindowOpenHandler(() => ({ action: 'deny' })));
  electron.session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  electron.session.defaultSession.setPermissionCheckHandler(() => false);

  const service = await Service.start({
    dataDir,
    http: buildServer,
    host: '127.0.0.1',
    port,
    onWarning: (line) => process.stderr.write(`chatbridge: ${line}\n`),
  });
  const notice = noAccountNotice(service.pool, null);
  if (notice) process.stdout.write(`${notice}\n`);
  electron.protocol.handle(APP_SCHEME, dashboardHandler(join(PACKAGE_ROOT, 'dist/renderer'), (r) => service.app.inject(r)));

  const views = new ElectronViews(electron);
  const choices = new HostChoices(dataDir);
  // Found on first use: an app without Chrome still runs every agent in its own view.
  const chrome = ChromiumHost.launching(join(dataDir, 'profiles'), findBrowser, false);
  const hosts = new HostRouter({ view: new ViewHost(views), chrome }, choices, (id) => service.pool.get(id)?.provider);
  const { sites, diagnostics } = await openSites(dataDir, (note) => service.log.add(note.level, 'service', note.message));
  const runtime = new AgentRuntime(service.pool, hosts, sites, diagnostics);
  void runtime.start();

  /** A window onto the agent's page: its view borrowed into a window, or its Chrome window brought forward. */
  const agentWindow = (agentId: string, title: string): LoginWindow => {
    if (hosts.kindOf(agentId) === 'view') return views.window(agentId, title);
    const page = runtime.agent(agentId)?.page();
    return {
      show: () => void page?.bringToFront(),
      close: () => {},
      onClosed: (listener) => page?.once('close', listener),
    };
  };
  // The dashboard's "Add account" and "Log in" (over HTTP) open login windows through this.
  service.attachAgents(new RuntimeControl(runtime, (id, title) => agentWindow(id, `${title} · ${service.pool.get(id)?.name ?? id}`)));

  const loginItem: LoginItem =
    process.platform === 'linux'
      ? xdgAutostart(process.env.APPIMAGE ?? app.getPath('exe'))
      : {
          enabled: () => app.getLoginItemSettings({ args: [HIDDEN_FLAG] }).openAtLogin,
          set: (enabled) => app.setLoginItemSettings({ openAtLogin: enabled, args: [HIDDEN_FLAG] }),
        };

  const handlers: Handlers = {
    'agents:watch': async ({ agentId }) => {
      const record = service.pool.get(agentId);
      if (!record) throw new Error(`No agent ${agentId}`);
      agentWindow(agentId, `${record.name} · ChatBridge`).show();
      return {};
    },
    'agents:set-host': async ({ agentId, host }) => {
      if (!service.pool.get(agentId)) throw new Error(`No agent ${agentId}`);
      choices.set(agentId, host);
      // At once: the agent's browser closes and it starts again on the chosen host.
      await runtime.restart(agentId);
      return {};
    },
    'desktop:state': async () => ({
      openAtLogin: loginItem.enabled(),
      hosts: Object.fromEntries(service.pool.list().map((a) => [a.id, hosts.kindOf(a.id)])),
    }),
    'desktop:set-open-at-login': async ({ enabled }) => {
      loginItem.set(enabled);
      return {};
    },
  };
  const route = ipcRouter(handlers, isDashboardUrl);
  for (const channel of CHANNELS) {
    electron.ipcMain.handle(channel, (event, payload) => route(channel, event.senderFrame?.url ?? '', payload));
  }

  let dashboard: BrowserWindow | null = null;
  let quitting = false;
  const showDashboard = () => {
    if (!dashboard || dashboard.isDestroyed()) {
      dashboard = new electron.BrowserWindow({
        width: 1200,
        height: 800,
        show: false,
        title: 'ChatBridge',
        webPreferences: dashboardPreferences(join(PACKAGE_ROOT, 'dist/preload/index.cjs'), app.isPackaged),
      });
      dashboard.webContents.on('will-navigate', (event) => event.preventDefault());
      // Closing the window keeps the service and agents running in the tray.
      dashboard.on('close', (event) => {
        if (quitting) return;
        event.preventDefault();
        dashboard?.hide();
      });
      // The page takes the admin token from the fragment, which never leaves the app.
      void dashboard.loadURL(`${DASHBOARD_URL}#token=${encodeURIComponent(adminToken(dataDir))}`);
    }
    if (dashboard.isMinimized()) dashboard.restore();
    dashboard.show();
    dashboard.focus();
  };

  const act = (action: TrayAction) => {
    if (action === 'dashboard') return showDashboard();
    if (action === 'quit') return app.quit();
    // The service hears the change and wakes the scheduler.
    service.settings.setPaused(action === 'pause').then(
      () => trayControl.refresh(),
      (error: Error) => service.log.warn('service', `The tray could not ${action}: ${error.message}`),
    );
  };
  const trayControl = startTray(
    electron,
    join(PACKAGE_ROOT, 'build/tray'),
    async () => ({
      agents: service.pool.list().map((a) => service.pool.state(a.id)),
      queueDepth: await service.store.queuedCount(EVERY_ACCOUNT),
      paused: service.settings.get().paused,
    }),
    act,
  );
  // Jobs, agents and settings (the CLI's too, through the service's reload), at most 4 times a
  // second. These listeners keep the Tray referenced for the app's life: a collected Tray disappears.
  feedTray(service, () => trayControl.refresh());

  app.on('second-instance', showDashboard);
  app.on('window-all-closed', () => {
    // Stay in the tray.
  });
  app.on('before-quit', (event) => {
    if (quitting) return;
    quitting = true;
    event.preventDefault();
    // Running jobs go back to the queue; then quit for real.
    void service.stop().finally(() => app.quit());
  });
  if (!values.hidden) showDashboard();
}
