import { join } from 'node:path';
import type { ElectronApi, MenuItemOptions } from './electron-api.js';
import { trayView, type TrayAction, type TraySnapshot } from './tray-model.js';

/**
 * The tray icon and its menu, redrawn from `trayView` whenever the state it shows changes.
 * The caller keeps `refresh` referenced (it holds the Tray): a collected Tray vanishes.
 */
export function startTray(
  electron: ElectronApi,
  iconsDir: string,
  snapshot: () => Promise<TraySnapshot>,
  act: (action: TrayAction) => void,
): { refresh(): void } {
  const tray = new electron.Tray(join(iconsDir, 'idle.png'));
  tray.on('click', () => act('dashboard'));
  let shown = '';
  const draw = (state: TraySnapshot) => {
    const view = trayView(state);
    const key = JSON.stringify(view);
    if (key === shown) return;
    shown = key;
    tray.setImage(join(iconsDir, `${view.icon}.png`));
    tray.setToolTip(view.tooltip);
    const items: MenuItemOptions[] = view.items.map((item) => {
      if (item.kind === 'separator') return { type: 'separator' };
      if (item.kind === 'info') return { label: item.label, enabled: false };
      return { label: item.label, click: () => act(item.action) };
    });
    tray.setContextMenu(electron.Menu.buildFromTemplate(items));
  };
  // Snapshots are read in order of refresh and drawn in that order (the queue depth is the store's, read asynchronously).
  let drawn = Promise.resolve();
  const refresh = () => {
    drawn = drawn.then(async () => draw(await snapshot()));
  };
  refresh();
  return { refresh };
}
