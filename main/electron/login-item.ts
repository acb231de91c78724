import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The flag a login start passes: the app starts in the tray, without its window. */
export const HIDDEN_FLAG = '--hidden';

/** "Start at login", on or off. */
export interface LoginItem {
  enabled(): boolean;
  set(enabled: boolean): void;
}

/**
 * Linux has no login-item API in Electron (app.setLoginItemSettings is macOS and Windows
 * only): desktops start what the XDG autostart folder lists.
 */
export function xdgAutostart(executable: string, env: NodeJS.ProcessEnv = process.env): LoginItem {
  const dir = join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'autostart');
  const file = join(dir, 'chatbridge.desktop');
  return {
    enabled: () => existsSync(file),
    set: (enabled) => {
      if (!enabled) return rmSync(file, { force: true });
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, desktopEntry(executable));
    },
  };
}

/** A desktop entry that starts the app hidden; the path is quoted as the spec asks. */
export function desktopEntry(executable: string): string {
  const quoted = `"${executable.replace(/(["`$\\])/g, '\\$1')}"`;
  return ['[Desktop Entry]', 'Type=Application', 'Name=ChatBridge', `Exec=${quoted} ${HIDDEN_FLAG}`, 'X-GNOME-Autostart-enabled=true', ''].join('\n');
}
