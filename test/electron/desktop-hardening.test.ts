/**
 * The desktop app's hardening that can be checked without Electron: the menu of a
 * packaged app has no developer tools, the dashboard window refuses them, the macOS
 * entitlements allow JIT and nothing wider, and a removed agent's partition leaves
 * nothing on disk.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appMenuTemplate } from '../../main/electron/app-menu.js';
import type { ElectronApi, MenuItemOptions, Session } from '../../main/electron/electron-api.js';
import { dashboardPreferences } from '../../main/electron/security.js';
import { ElectronViews } from '../../main/electron/views.js';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';

const roles = (items: MenuItemOptions[]): string[] => items.flatMap((i) => [...(i.role ? [i.role] : []), ...roles(i.submenu ?? [])]);

describe('desktop hardening', () => {
  it('a packaged app has no developer tools in its menu, on every platform; a development build keeps them', () => {
    for (const platform of ['darwin', 'win32', 'linux'] as const) {
      const packaged = roles(appMenuTemplate(true, platform));
      expect(packaged, platform).not.toContain('toggleDevTools');
      expect(packaged, platform).toEqual(expect.arrayContaining(['copy', 'paste', 'selectAll']));
      expect(roles(appMenuTemplate(false, platform))).toContain('toggleDevTools');
    }
    expect(roles(appMenuTemplate(true, 'darwin'))).toContain('appMenu');
  });

  it('the dashboard window refuses developer tools when packaged', () => {
    expect(dashboardPreferences('/p.cjs', true).devTools).toBe(false);
    expect(dashboardPreferences('/p.cjs', false).devTools).toBe(true);
  });

  it('the macOS entitlements allow JIT and not unsigned executable memory', () => {
    const plist = readFileSync(join(PACKAGE_ROOT, 'build/entitlements.mac.plist'), 'utf8');
    expect(plist).toContain('<key>com.apple.security.cs.allow-jit</key>');
    expect(plist).not.toContain('<key>com.apple.security.cs.allow-unsigned-executable-memory</key>');
    expect(plist.match(/<key>/g)).toHaveLength(1);
  });

  it("removing an agent clears its partition's data through the session and deletes its folder", async () => {
    const root = mkdtempSync(join(tmpdir(), 'chatbridge-partitions-'));
    try {
      const folder = join(root, 'Partitions', 'agent-agt_1');
      mkdirSync(join(folder, 'Network'), { recursive: true });
      writeFileSync(join(folder, 'Network', 'Cookies'), 'session=secret');
      const calls: string[] = [];
      const session = {
        storagePath: folder,
        clearStorageData: async () => void calls.push(`clearStorageData ${existsSync(folder)}`),
        clearCache: async () => void calls.push('clearCache'),
      } as unknown as Session;
      const partitions: string[] = [];
      const electron = {
        session: {
          fromPartition: (p: string) => {
            partitions.push(p);
            return session;
          },
        },
      } as unknown as ElectronApi;
      await new ElectronViews(electron).forget('agt_1');
      expect(partitions).toEqual(['persist:agent-agt_1']);
      expect(calls).toEqual(['clearStorageData true', 'clearCache']);
      expect(existsSync(folder)).toBe(false);
      expect(existsSync(join(root, 'Partitions'))).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
