import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sessionLoss, type BrowserHost, type BrowserSession, type OpenOptions } from '../../main/core/browser-host.js';

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

/**
 * Playwright starts Chromium with `--password-store=basic --use-mock-keychain`: cookies,
 * the accounts' logins, are then encrypted with a key built into Chromium, so a copy of
 * the profile folder is a copy of the logins. Ours use the OS keyring where there is one:
 * the macOS keychain, DPAPI on Windows (always on), and on Linux the Secret Service
 * (GNOME Keyring, or KWallet 5.97+) or KWallet on the session D-Bus. Without one, Chromium's
 * basic store remains and only the folder's 0700 mode protects the logins: said once in the
 * log. Chromium still reads cookies a profile stored with the basic store, so a profile
 * keeps its logins when it moves to the keyring.
 */
export function keyringChoice(platform: NodeJS.Platform, busNames: () => string[]): KeyringChoice {
  const mock = '--use-mock-keychain';
  const basic = '--password-store=basic';
  if (platform !== 'linux') return { ignoreDefaultArgs: [mock, basic], args: [], warning: null };
  const names = new Set(busNames());
  const store = names.has('org.freedesktop.secrets')
    ? 'gnome-libsecret'
    : names.has('org.kde.kwalletd6')
      ? 'kwallet6'
      : names.has('org.kde.kwalletd5')
        ? 'kwallet5'
        : null;
  if (store) return { ignoreDefaultArgs: [mock, basic], args: [`--password-store=${store}`], warning: null };
  return {
    // Playwright's own `--password-store=basic` stays (its filter would drop ours too).
    ignoreDefaultArgs: [mock],
    args: [],
    warning:
      "no OS keyring (no Secret Service or KWallet on the session D-Bus): the agents' browser profiles keep cookies " +
      "encrypted with Chromium's built-in key; the data folder's owner-only mode is what protects the logins.",
  };
}

export interface KeyringChoice {
  /** Playwright's default switches to leave out. */
  ignoreDefaultArgs: string[];
  args: string[];
  /** The one line to log when the logins are not under a keyring. */
  warning: string | null;
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

/** Decided once per process: the bus does not change under a running service. */
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

/**
 * The headless host: one persistent Chromium profile per agent under the data dir, driven
 * over Playwright's pipe (no debugging port). Used by `serve`, the tests, and for sites
 * that refuse embedded browsers.
 */
export class ChromiumHost implements BrowserHost {
  constructor(
    private readonly profilesDir: string,
    /** The browser's path, or how to find it when the first agent opens. */
    private readonly executable: string | (() => string),
    private readonly headless = true,
    private readonly warn: (line: string) => void = (line) => process.stderr.write(`chatbridge: ${line}\n`),
  ) {}

  async open(agentId: string, { proxy = null }: OpenOptions = {}): Promise<BrowserSession> {
    if (!keyring) {
      keyring = keyringChoice(process.platform, sessionBusNames);
      if (keyring.warning) this.warn(keyring.warning);
    }
    if (sandbox === null && process.getuid?.() === 0) {
      sandbox = false;
      this.warn("the agents' Chromium runs without its sandbox: ChatBridge runs as root, where Chromium refuses to sandbox.");
    }
    // Loaded with the first browser: a service without agents does not hold it (some 90 MB resident).
    const { chromium } = await import('playwright-core');
    const launch = (keepSandbox: boolean) =>
      chromium.launchPersistentContext(join(this.profilesDir, agentId), {
        executablePath: typeof this.executable === 'string' ? this.executable : this.executable(),
        headless: this.headless,
        chromiumSandbox: keepSandbox,
        viewport: { width: 1280, height: 900 },
        // The service stops its browsers itself, after a stop's grace (main/cli/stop-signals.ts):
        // Playwright's own handlers would close them at the signal (and, for SIGINT, exit 130),
        // racing that clean stop.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        // Playwright sends loopback through the proxy too (Chromium alone would not).
        ...(proxy ? { proxy: { server: proxy.server, ...(proxy.username !== null ? { username: proxy.username, password: proxy.password ?? '' } : {}) } } : {}),
        ignoreDefaultArgs: keyring!.ignoreDefaultArgs,
        args: [
          ...keyring!.args,
          '--no-first-run',
          '--no-default-browser-check',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...IDLE_DISABLED_FEATURES].join(',')}`,
        ],
      });
    let context;
    try {
      context = await launch(sandbox ?? true);
      sandbox ??= true;
    } catch (error) {
      if (sandbox !== null || !sandboxFailure(error)) throw error;
      sandbox = false;
      this.warn(`the agents' Chromium runs without its sandbox: this machine gives it none (${(error as Error).message.split('\n')[0]}).`);
      context = await launch(false);
    }
    const page = context.pages()[0] ?? (await context.newPage());
    const loss = sessionLoss();
    context.on('close', loss.fire);
    page.on('crash', loss.fire);
    page.on('close', loss.fire);
    return {
      page,
      onLost: loss.onLost,
      close: async () => {
        loss.silence();
        await context.close().catch(() => {});
      },
    };
  }

  async forget(agentId: string): Promise<void> {
    // Chromium's helper processes can still be writing for a moment after it closed.
    await rm(join(this.profilesDir, agentId), { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
