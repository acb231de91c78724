import type { MenuItemOptions } from './electron-api.js';

/**
 * The desktop app's menu. Electron's default menu offers the developer tools (View →
 * Toggle Developer Tools, Ctrl+Shift+I), from which anyone at the screen could read the
 * admin token out of the dashboard; a packaged app has none. The Edit roles stay: on
 * macOS copy and paste work only through the menu.
 */
export function appMenuTemplate(packaged: boolean, platform: NodeJS.Platform): MenuItemOptions[] {
  const view: MenuItemOptions[] = [
    { role: 'resetZoom' },
    { role: 'zoomIn' },
    { role: 'zoomOut' },
    { type: 'separator' },
    { role: 'togglefullscreen' },
    ...(packaged ? [] : [{ type: 'separator' as const }, { role: 'reload' as const }, { role: 'toggleDevTools' as const }]),
  ];
  return [
    ...(platform === 'darwin' ? [{ role: 'appMenu' as const }] : [{ label: 'File', submenu: [{ role: 'quit' as const }] }]),
    {
      label: 'Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'selectAll' },
      ],
    },
    { label: 'View', submenu: view },
    { role: 'windowMenu' },
  ];
}
