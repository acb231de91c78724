/**
 * The headless agents' Chromium: one browser for every agent, a context each; each agent's
 * login saved to its folder and restored with its context; a profile of the old layout (one
 * Chromium profile per agent) carried over with the keyring it was written with; the sandbox
 * kept where the machine allows, said once where not.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumHost, keyringChoice } from '../../agents/browser/chromium-host.js';
import { findBrowser } from '../../agents/browser/find-browser.js';
import { loginFile, readLogin } from '../../agents/browser/saved-login.js';
import { HOST_SWITCH, SharedChromium } from '../../agents/browser/shared-chromium.js';
import { until } from '../support/until.js';

/** This process's Chromium main processes (their helpers are their own children), with their switches. */
function browsers(): string[][] {
  const mine: string[][] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv.includes('--remote-debugging-pipe')) mine.push(argv);
    } catch {
      // gone meanwhile
    }
  }
  return mine;
}

describe('the password store a profile of the old layout is read with', () => {
  it('is the Secret Service or KWallet on Linux when the session bus has one, basic otherwise; other OSes use theirs', () => {
    const all = ['--use-mock-keychain', '--password-store=basic'];
    expect(keyringChoice('linux', () => ['org.freedesktop.DBus', 'org.freedesktop.secrets'])).toEqual({ ignoreDefaultArgs: all, args: ['--password-store=gnome-libsecret'] });
    expect(keyringChoice('linux', () => ['org.kde.kwalletd6']).args).toEqual(['--password-store=kwallet6']);
    expect(keyringChoice('linux', () => ['org.kde.kwalletd5']).args).toEqual(['--password-store=kwallet5']);
    expect(keyringChoice('linux', () => [])).toEqual({ ignoreDefaultArgs: ['--use-mock-keychain'], args: [] });
    for (const platform of ['darwin', 'win32'] as const) expect(keyringChoice(platform, () => [])).toEqual({ ignoreDefaultArgs: all, args: [] });
  });
});

describe.runIf(process.platform === 'linux')('the agents’ shared Chromium', () => {
  let site: Server;
  let origin: string;
  const requests: string[] = [];
  let profiles: string;
  const warnings: string[] = [];
  let host: ChromiumHost;

  beforeAll(async () => {
    // A site that logs its visitor in: a cookie from the server, a token in local storage from its script.
    site = createServer((req, res) => {
      requests.push(req.url ?? '');
      // A service worker that takes every load of the site and fetches it itself, as a site's offline cache does.
      if (req.url === '/sw.js') {
        res.setHeader('content-type', 'text/javascript');
        res.end(`self.addEventListener('install', () => self.skipWaiting());
          self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
          self.addEventListener('fetch', (event) => event.respondWith(fetch(event.request)));`);
        return;
      }
      res.setHeader('content-type', 'text/html');
      if (req.url === '/login') res.setHeader('set-cookie', 'session=s3cret; Path=/; Max-Age=86400; HttpOnly; SameSite=Lax');
      res.end(`<html><body><script>if (location.pathname === '/login') localStorage.setItem('token', 't0ken');</script>${req.url}</body></html>`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    profiles = mkdtempSync(join(tmpdir(), 'chatbridge-host-'));
    host = new ChromiumHost(profiles, new SharedChromium({ executable: findBrowser(), name: profiles, warn: (line) => warnings.push(line) }));
  });

  afterAll(async () => {
    site.close();
    rmSync(profiles, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it('runs every agent in one browser, a context each that shares no cookie, and closes it with the last', async () => {
    const [a, b] = [await host.open('agt_a'), await host.open('agt_b')];
    try {
      expect(browsers()).toHaveLength(1);
      expect(browsers()[0]).toContain(`${HOST_SWITCH}=${profiles}`);
      expect(a.page.context()).not.toBe(b.page.context());
      await a.page.goto(`${origin}/login`);
      await b.page.goto(`${origin}/chat`);
      expect((await a.page.context().cookies()).map((c) => c.name)).toEqual(['session']);
      expect(await b.page.context().cookies()).toEqual([]);
      expect(await b.page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    } finally {
      await a.close();
      expect(browsers()).toHaveLength(1);
      await b.close();
    }
    expect(browsers()).toHaveLength(0);
  });

  it("keeps an agent's login across its context's close, saved owner-only in its folder", async () => {
    const first = await host.open('agt_keep');
    await first.page.goto(`${origin}/login`);
    await first.page.goto(`${origin}/chat`);
    await first.close();
    expect(statSync(loginFile(join(profiles, 'agt_keep'))).mode & 0o777).toBe(0o600);
    const again = await host.open('agt_keep');
    try {
      await again.page.goto(`${origin}/chat`);
      expect((await again.page.context().cookies()).find((c) => c.name === 'session')?.value).toBe('s3cret');
      expect(await again.page.evaluate(() => localStorage.getItem('token'))).toBe('t0ken');
    } finally {
      await again.close();
    }
  });

  it('saves a login a moment after the page navigates, so a browser that dies keeps it; the agents all hear of its death', async () => {
    const [a, b] = [await host.open('agt_crash'), await host.open('agt_other')];
    const lost: string[] = [];
    a.onLost(() => lost.push('a'));
    b.onLost(() => lost.push('b'));
    await a.page.goto(`${origin}/login`);
    await until(async () => (await readLogin(join(profiles, 'agt_crash')))?.cookies.some((c) => c.name === 'session') ?? false, 15_000, 'the login saved');
    expect((await readLogin(join(profiles, 'agt_crash')))!.origins).toEqual([{ origin, localStorage: [{ name: 'token', value: 't0ken' }] }]);
    execFileSync('pkill', ['-KILL', '-f', '--', `${HOST_SWITCH}=${profiles}`]);
    await until(() => lost.length === 2, 15_000, 'both sessions lost');
    await a.close();
    await b.close();
    // The next context opens in a new browser, with the saved login.
    const after = await host.open('agt_crash');
    try {
      expect(browsers()).toHaveLength(1);
      await after.page.goto(`${origin}/chat`);
      expect(await after.page.evaluate(() => localStorage.getItem('token'))).toBe('t0ken');
    } finally {
      await after.close();
    }
  });

  it('carries over the login of a profile of the old layout: its cookies under its keyring, its site’s local storage, without reaching the site, even through its service worker', async () => {
    const { chromium } = await import('playwright-core');
    const dir = join(profiles, 'agt_old');
    const keyring = keyringChoice('linux', () => []);
    const old = await chromium.launchPersistentContext(dir, {
      executablePath: findBrowser(),
      headless: true,
      chromiumSandbox: process.getuid?.() !== 0,
      ignoreDefaultArgs: keyring.ignoreDefaultArgs,
      args: keyring.args,
    });
    const oldPage = old.pages()[0] ?? (await old.newPage());
    await oldPage.goto(`${origin}/login`);
    await oldPage.evaluate(async () => {
      await navigator.serviceWorker.register('/sw.js');
      await navigator.serviceWorker.ready;
    });
    await old.close();
    requests.length = 0;
    const session = await host.open('agt_old', { siteOrigin: origin });
    try {
      expect(requests).toEqual([]);
      expect((await session.page.context().cookies()).find((c) => c.name === 'session')?.value).toBe('s3cret');
      await session.page.goto(`${origin}/chat`);
      expect(await session.page.evaluate(() => localStorage.getItem('token'))).toBe('t0ken');
      // Carried over once: the saved login is read from now on.
      expect((await readLogin(dir))?.origins).toEqual([{ origin, localStorage: [{ name: 'token', value: 't0ken' }] }]);
    } finally {
      await session.close();
    }
  });

  it('keeps its sandbox unless the machine cannot give one, and says so at most once', async () => {
    const session = await host.open('agt_sandbox');
    try {
      const [argv] = browsers();
      const sandboxWarnings = warnings.filter((w) => /sandbox/.test(w));
      expect(sandboxWarnings.length).toBeLessThanOrEqual(1);
      expect(argv!.includes('--no-sandbox')).toBe(sandboxWarnings.length === 1);
      if (process.getuid?.() === 0) expect(sandboxWarnings[0]).toMatch(/runs as root/);
    } finally {
      await session.close();
    }
  });
});
