import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sessionLoss, type BrowserHost, type BrowserSession, type OpenOptions } from '../../main/core/browser-host.js';
import { LoginKeeper, pageStorage, readLogin, writeLogin, type SavedLogin } from './saved-login.js';
import { BACKGROUND_OFF, SIGNALS_LEFT_TO_THE_SERVICE, SharedChromium } from './shared-chromium.js';

/**
 * The password store a profile of the old layout was written with, so that its Chromium can
 * decrypt the cookies it carries over: Playwright starts Chromium with
 * `--password-store=basic --use-mock-keychain`, and those profiles used the OS keyring where
 * there was one (the macOS keychain, DPAPI on Windows, the Secret Service or KWallet on the
 * Linux session D-Bus). Chromium reads cookies stored with the basic store under a keyring
 * too, so the keyring is asked for whenever there is one.
 */
export function keyringChoice(platform: NodeJS.Platform, busNames: () => string[]): KeyringChoice {
  const mock = '--use-mock-keychain';
  const basic = '--password-store=basic';
  if (platform !== 'linux') return { ignoreDefaultArgs: [mock, basic], args: [] };
  const names = new Set(busNames());
  const store = names.has('org.freedesktop.secrets')
    ? 'gnome-libsecret'
    : names.has('org.kde.kwalletd6')
      ? 'kwallet6'
      : names.has('org.kde.kwalletd5')
        ? 'kwallet5'
        : null;
  // Without one, Playwright's own `--password-store=basic` stays (its filter would drop ours too).
  return store ? { ignoreDefaultArgs: [mock, basic], args: [`--password-store=${store}`] } : { ignoreDefaultArgs: [mock], args: [] };
}

export interface KeyringChoice {
  /** Playwright's default switches to leave out. */
  ignoreDefaultArgs: string[];
  args: string[];
}

/** Names owned or activatable on the session D-Bus, asked through gdbus or dbus-send; none without a bus. */
function sessionBusNames(): string[] {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) return [];
  const names: string[] = [];
  for (const method of ['ListNames', 'ListActivatableNames']) {
    for (const [command, args] of [
      ['gdbus', ['call', '--session', '--dest', 'org.freedesktop.DBus', '--object-path', '/org/freedesktop/DBus', '--method', `org.freedesktop.DBus.${method}`]],
      ['dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', `org.freedesktop.DBus.${method}`]],
    ] as const) {
      const result = spawnSync(command, args, { encoding: 'utf8', timeout: 2_000 });
      if (result.status !== 0) continue;
      names.push(...(result.stdout.match(/[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+/g) ?? []));
      break;
    }
  }
  return names;
}

/** Decided once per process, at the first profile carried over: the bus does not change under a running service. */
let keyring: KeyringChoice | null = null;

/** Where an agent's login lives: its folder under the profiles folder. */
const agentDir = (profilesDir: string, agentId: string) => join(profilesDir, agentId);

/**
 * The headless host: one Chromium for all the agents (shared-chromium.ts), and a context of
 * its own for each agent. Contexts share nothing (cookies, storage, cache, renderer
 * processes), so two accounts of one provider live side by side; the browser's main, GPU,
 * network and storage processes are paid once instead of once an agent: about 80 MB an
 * agent instead of 155 (six idle agents, bench/agents.ts). A context keeps nothing on disk,
 * so each agent's login (cookies and its sites' local storage) is saved to its folder
 * (saved-login.ts) and restored when its context opens again.
 *
 * Used by `serve`, the tests, and for sites that refuse embedded browsers.
 */
export class ChromiumHost implements BrowserHost {
  constructor(
    private readonly profilesDir: string,
    /** The browser the agents share: launched for the first session, closed with the last. */
    private readonly chromium: SharedChromium,
  ) {}

  /** A host with a Chromium of its own, named in the process list by the profiles folder. */
  static launching(profilesDir: string, executable: string | (() => string), headless = true): ChromiumHost {
    return new ChromiumHost(profilesDir, new SharedChromium({ executable, name: profilesDir, headless }));
  }

  async open(agentId: string, { proxy = null, siteOrigin }: OpenOptions = {}): Promise<BrowserSession> {
    const dir = agentDir(this.profilesDir, agentId);
    let browser: Browser | null = null;
    let context: BrowserContext | null = null;
    let login: SavedLogin | null;
    let page: Page;
    try {
      login = (await readLogin(dir)) ?? (await this.fromProfile(dir, siteOrigin));
      browser = await this.chromium.take();
      context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        ...(login ? { storageState: login } : {}),
        // Playwright sends loopback through the proxy too (Chromium alone would not).
        ...(proxy ? { proxy: { server: proxy.server, ...(proxy.username !== null ? { username: proxy.username, password: proxy.password ?? '' } : {}) } } : {}),
      });
      page = await context.newPage();
    } catch (error) {
      await context?.close().catch(() => {});
      if (browser) await this.chromium.giveBack();
      throw error;
    }
    const open = context;
    const keeper = new LoginKeeper(dir, open, page, login);
    const loss = sessionLoss();
    open.on('close', loss.fire);
    page.on('crash', loss.fire);
    page.on('close', loss.fire);
    let closing: Promise<void> | null = null;
    return {
      page,
      onLost: loss.onLost,
      close: () =>
        (closing ??= (async () => {
          loss.silence();
          await keeper.stop();
          await open.close().catch(() => {});
          await this.chromium.giveBack();
        })()),
    };
  }

  async forget(agentId: string): Promise<void> {
    // Chromium's helper processes of a profile of the old layout can still be writing for a moment after it closed.
    await rm(agentDir(this.profilesDir, agentId), { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }

  /**
   * The login of a profile of the old layout (one persistent Chromium profile per agent,
   * before agents shared a browser), carried over once: its cookies, which its Chromium
   * decrypts with the keyring it used, and its site's local storage, read on a page of that
   * origin whose every request is answered here, so nothing reaches the site. The old
   * profile stays in the folder until the agent is removed. Null for a folder without one.
   */
  private async fromProfile(dir: string, siteOrigin: string | undefined): Promise<SavedLogin | null> {
    if (!existsSync(join(dir, 'Default'))) return null;
    keyring ??= keyringChoice(process.platform, sessionBusNames);
    const { chromium } = await import('playwright-core');
    const context = await this.chromium.withSandbox((keepSandbox) =>
      chromium.launchPersistentContext(dir, {
        executablePath: this.chromium.executablePath(),
        headless: true,
        chromiumSandbox: keepSandbox,
        ...SIGNALS_LEFT_TO_THE_SERVICE,
        ignoreDefaultArgs: keyring!.ignoreDefaultArgs,
        args: [...keyring!.args, ...BACKGROUND_OFF],
      }),
    );
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      let origins: SavedLogin['origins'] = [];
      if (siteOrigin) {
        const cdp = await context.newCDPSession(page);
        // A service worker the site left in the profile would answer the load itself, past
        // the route, and fetch from the site; bypassed, the load reaches the route. The empty
        // icon keeps Chromium from asking the site for its favicon.
        await cdp.send('Network.enable');
        await cdp.send('Network.setBypassServiceWorker', { bypass: true });
        await page.route('**/*', (route) => route.fulfill({ contentType: 'text/html', body: '<html><head><link rel="icon" href="data:,"></head></html>' }));
        await page.goto(siteOrigin);
        const storage = await pageStorage(cdp, page);
        if (storage?.localStorage.length) origins = [storage];
      }
      const login = { cookies: await context.cookies(), origins };
      await writeLogin(dir, login);
      return login;
    } finally {
      await context.close().catch(() => {});
    }
  }
}
