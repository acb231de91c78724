import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { desktopEntry, xdgAutostart } from '../../main/electron/login-item.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('start at login on Linux (XDG autostart)', () => {
  it('writes and removes an autostart entry that starts the app hidden', () => {
    const config = mkdtempSync(join(tmpdir(), 'cb-xdg-'));
    dirs.push(config);
    const item = xdgAutostart('/opt/ChatBridge/chatbridge', { XDG_CONFIG_HOME: config });
    expect(item.enabled()).toBe(false);
    item.set(true);
    expect(item.enabled()).toBe(true);
    const entry = readFileSync(join(config, 'autostart', 'chatbridge.desktop'), 'utf8');
    expect(entry).toContain('Exec="/opt/ChatBridge/chatbridge" --hidden');
    item.set(false);
    expect(item.enabled()).toBe(false);
  });

  it('quotes paths with spaces and shell characters', () => {
    expect(desktopEntry('/home/a b/Chat"Bridge$.AppImage')).toContain('Exec="/home/a b/Chat\\"Bridge\\$.AppImage" --hidden');
  });
});
