/**
 * The headless agents' Chromium keeps the accounts' cookies under the OS keyring where
 * there is one, never Playwright's mock keychain, and keeps its sandbox where the machine
 * allows; without either it says so once.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChromiumHost, keyringChoice } from '../../agents/browser/chromium-host.js';
import { findBrowser } from '../../agents/browser/find-browser.js';

describe('the password store of the agents’ Chromium', () => {
  it('is the Secret Service or KWallet on Linux when the session bus has one, basic with a warning otherwise; other OSes use theirs', () => {
    const all = ['--use-mock-keychain', '--password-store=basic'];
    expect(keyringChoice('linux', () => ['org.freedesktop.DBus', 'org.freedesktop.secrets'])).toEqual({
      ignoreDefaultArgs: all,
      args: ['--password-store=gnome-libsecret'],
      warning: null,
    });
    expect(keyringChoice('linux', () => ['org.kde.kwalletd6']).args).toEqual(['--password-store=kwallet6']);
    expect(keyringChoice('linux', () => ['org.kde.kwalletd5']).args).toEqual(['--password-store=kwallet5']);
    const none = keyringChoice('linux', () => []);
    expect(none).toMatchObject({ ignoreDefaultArgs: ['--use-mock-keychain'], args: [] });
    expect(none.warning).toMatch(/no OS keyring/);
    for (const platform of ['darwin', 'win32'] as const) {
      expect(keyringChoice(platform, () => [])).toEqual({ ignoreDefaultArgs: all, args: [], warning: null });
    }
  });

  it.runIf(process.platform === 'linux')('a real launch has no --use-mock-keychain, the store chosen above, its sandbox unless it cannot, and warns at most once of each', async () => {
    const profiles = mkdtempSync(join(tmpdir(), 'chatbridge-keyring-'));
    const warnings: string[] = [];
    const host = new ChromiumHost(profiles, findBrowser(), true, (line) => warnings.push(line));
    const sessions = [await host.open('agt_a'), await host.open('agt_b')];
    try {
      const browsers = readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .map((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          } catch {
            return [];
          }
        })
        .filter((argv) => argv.some((a) => a.startsWith('--user-data-dir=') && a.includes(profiles)) && !argv.some((a) => a.startsWith('--type=')));
      expect(browsers).toHaveLength(2);
      for (const argv of browsers) {
        expect(argv).not.toContain('--use-mock-keychain');
        expect(argv.filter((a) => a.startsWith('--password-store='))).toHaveLength(1);
      }
      const keyringWarnings = warnings.filter((w) => /keyring/.test(w));
      expect(keyringWarnings.length).toBeLessThanOrEqual(1);
      if (browsers[0]!.includes('--password-store=basic')) expect(keyringWarnings).toHaveLength(1);
      // The sandbox is kept unless Chromium cannot have it (as root it refuses): said once, then.
      const sandboxWarnings = warnings.filter((w) => /sandbox/.test(w));
      expect(sandboxWarnings.length).toBeLessThanOrEqual(1);
      for (const argv of browsers) expect(argv.includes('--no-sandbox')).toBe(sandboxWarnings.length === 1);
      if (process.getuid?.() === 0) expect(sandboxWarnings[0]).toMatch(/runs as root/);
    } finally {
      for (const s of sessions) await s.close();
      rmSync(profiles, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  });
});
