import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sessionLoss, type BrowserHost, type BrowserSession, type OpenOptions } from '../../main/core/browser-host.js';
import { LoginKeeper, pageStorage, readLogin, writeLogin, type SavedLogin } from './saved-login.js';

/**
 * Chromium keeps only the last `--disable-features` it is given, so ours must repeat the
 * list Playwright passes (playwright-core 1.65, chromiumSwitches.ts) or those would be
 * enabled again.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Background work of Chromium that an agent never needs, each measured on an idle agent
 * (bench/agents.ts, idle section; six agents on 2 cores):
 * - the omnibox popup: the full browser behind `--headless` preloads the address bar's
 *   popup (chrome://omnibox-popup.top-chrome) in a renderer process of its own, which
 *   nobody ever sees here: about 0.15 % of a core per agent in its first minutes, and
 *   that process's memory for good;
 * - Autofill's server queries: every form the agent loads (the login page, the composer)
 *   is looked up at content-autofill.googleapis.com, and retried when that fails; the
 *   agent never autofills, and the provider's forms are none of Google's business;
 * - the segmentation platform: Chrome's on-device user-classification models, which
 *   read their signal database in some 4 000 tasks about 20 s after the start;
 * - the spare renderer: a second renderer process kept warm for the next cross-site
 *   navigation. An agent's navigations stay on its provider's site (the new chat, the
 *   conversation), which reuses the page's own process, so the spare only ever waited;
 *   a login that crosses sites starts its process when it needs it.
 * Worth keeping in mind and left on: the throttling of hidden pages (Playwright turns it
 * off; a headless page is never hidden anyway) and the GPU process (`--disable-gpu`
 * measured no different).
 */
const IDLE_DISABLED_FEATURES = [
  'WebUIOmniboxPopup',
  'WebUIOmniboxAimPopup',
  'AutofillServerCommunication',
  'SegmentationPlatform',
  'SpareRendererForSitePerProcess',
];

/** Chromium's switches for every launch: nothing in the background an agent does not need. */
const BACKGROUND_OFF = [
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...IDLE_DISABLED_FEATURES].join(',')}`,
];

/**
 * The service stops its browsers itself, after a stop's grace (main/cli/stop-signals.ts):
 * Playwright's own handlers would close them at the signal (and, for SIGINT, exit 130),
 * racing that clean stop.
 */
const SIGNALS_LEFT_TO_THE_SERVICE = { handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false };

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

/**
 * Whether Chromium's sandbox can be kept, decided at the first launch and said once when
 * not: Chromium refuses to sandbox as root (containers, CI), and a kernel without user
 * namespaces (and no setuid helper) has no sandbox to give. Playwright drops the sandbox
 * unless asked to keep it (`chromiumSandbox`).
 */
let sandbox: boolean | null = null;

function sandboxFailure(error: unknown): boolean {
  return /No usable sandbox|sandbox.*(?:not|isn't) (?:available|supported)|setuid sandbox|Failed to move to new namespace/i.test((error as Error)?.message ?? '');
}

/** The switch that names a host's browser in the process list: `--chatbridge-profiles=<profiles folder>`. */
export const HOST_SWITCH = '--chatbridge-profiles';

/** Where an agent's login lives: its folder under the profiles folder. */
const agentDir = (profilesDir: string, agentId: string) => join(profilesDir, agentId);

/**
 * The headless host: one Chromium for all the agents, driven over Playwright's pipe (no
 * debugging port), and a context of its own for each agent. Contexts share nothing (cookies,
 * storage, cache, renderer processes), so two accounts of one provider live side by side; the
 * browser's main, GPU, network and storage processes are paid once instead of once an agent:
 * about 80 MB an agent instead of 155 (six idle agents, bench/agents.ts). A context keeps
 * nothing on disk, so each agent's login (cookies and its sites' local storage) is saved to
 * its folder (saved-login.ts) and restored when its context opens again.
 *
 * Used by `serve`, the tests, and for sites that refuse embedded browsers.
 */
export class ChromiumHost implements BrowserHost {
  private browser: Promise<Browser> | null = null;
  /** Open sessions: the browser closes with the last, so an idle host holds no Chromium. */
  private sessions = 0;

  constructor(
    private readonly profilesDir: string,
    /** The browser's path, or how to find it when the first agent opens. */
    private readonly executable: string | (() => string),
    private readonly headless = true,
    private readonly warn: (line: string) => void = (line) => process.stderr.write(`chatbridge: ${line}\n`),
  ) {}

  async open(agentId: string, { proxy = null, siteOrigin }: OpenOptions = {}): Promise<BrowserSession> {
    const dir = agentDir(this.profilesDir, agentId);
    this.sessions++;
    let context: BrowserContext | null = null;
    let login: SavedLogin | null;
    let page: Page;
    try {
      login = (await readLogin(dir)) ?? (await this.fromProfile(dir, siteOrigin));
      const browser = await this.shared();
      context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        ...(login ? { storageState: login } : {}),
        // Playwright sends loopback through the proxy too (Chromium alone would not).
        ...(proxy ? { proxy: { server: proxy.server, ...(proxy.username !== null ? { username: proxy.username, password: proxy.password ?? '' } : {}) } } : {}),
      });
      page = await context.newPage();
    } catch (error) {
      await context?.close().catch(() => {});
      await this.release();
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
          await this.release();
        })()),
    };
  }

  async forget(agentId: string): Promise<void> {
    // Chromium's helper processes of a profile of the old layout can still be writing for a moment after it closed.
    await rm(agentDir(this.profilesDir, agentId), { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }

  /** The browser, launched by the first session that needs it and again after it died. */
  private shared(): Promise<Browser> {
    if (!this.browser) {
      const launching = this.launch();
      this.browser = launching;
      launching.then(
        (browser) => browser.on('disconnected', () => void (this.browser === launching && (this.browser = null))),
        () => void (this.browser === launching && (this.browser = null)),
      );
    }
    return this.browser;
  }

  private async release(): Promise<void> {
    if (--this.sessions > 0 || !this.browser) return;
    const last = this.browser;
    this.browser = null;
    await (await last.catch(() => null))?.close().catch(() => {});
  }

  private async launch(): Promise<Browser> {
    this.decideSandbox();
    // Loaded with the first browser: a service without agents does not hold it (some 90 MB resident).
    const { chromium } = await import('playwright-core');
    const launch = (keepSandbox: boolean) =>
      chromium.launch({
        executablePath: this.executablePath(),
        headless: this.headless,
        chromiumSandbox: keepSandbox,
        ...SIGNALS_LEFT_TO_THE_SERVICE,
        // Names the browser in the process list by its data folder, as a profile folder did
        // (`pkill -f`, or a test that kills its own); Chromium ignores a switch it does not know.
        args: [...BACKGROUND_OFF, `${HOST_SWITCH}=${this.profilesDir}`],
      });
    return this.withSandboxFallback(launch);
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
    this.decideSandbox();
    keyring ??= keyringChoice(process.platform, sessionBusNames);
    const { chromium } = await import('playwright-core');
    const context = await this.withSandboxFallback((keepSandbox) =>
      chromium.launchPersistentContext(dir, {
        executablePath: this.executablePath(),
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

  private executablePath(): string {
    return typeof this.executable === 'string' ? this.executable : this.executable();
  }

  private decideSandbox(): void {
    if (sandbox === null && process.getuid?.() === 0) {
      sandbox = false;
      this.warn("the agents' Chromium runs without its sandbox: ChatBridge runs as root, where Chromium refuses to sandbox.");
    }
  }

  private async withSandboxFallback<T>(launch: (keepSandbox: boolean) => Promise<T>): Promise<T> {
    try {
      const launched = await launch(sandbox ?? true);
      sandbox ??= true;
      return launched;
    } catch (error) {
      if (sandbox !== null || !sandboxFailure(error)) throw error;
      sandbox = false;
      this.warn(`the agents' Chromium runs without its sandbox: this machine gives it none (${(error as Error).message.split('\n')[0]}).`);
      return launch(false);
    }
  }
}
