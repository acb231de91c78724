import type { Browser } from 'playwright-core';

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
export const BACKGROUND_OFF = [
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
export const SIGNALS_LEFT_TO_THE_SERVICE = { handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false };

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

/** The switch that names a shared Chromium in the process list: `--chatbridge-profiles=<its agents' profiles folder>`. */
export const HOST_SWITCH = '--chatbridge-profiles';

export interface SharedChromiumOptions {
  /** The browser's path, or how to find it when it is first launched. */
  executable: string | (() => string);
  /** What HOST_SWITCH names it by: the profiles folder of the agents it serves. */
  name: string;
  headless?: boolean;
  /**
   * Kept open when the last taker gives it back, until this process ends: a test process,
   * whose files take it in turn, launches it once instead of once a file.
   */
  keepOpen?: boolean;
  /** Where the one-time note about the sandbox goes. */
  warn?: (line: string) => void;
}

/**
 * One Chromium, driven over Playwright's pipe (no debugging port), for everyone who takes
 * it: launched for the first taker, launched again after it died, and closed when the last
 * gives it back, so an idle service holds no Chromium. The headless host's agents take it
 * (a context each), and so do the tests' pages.
 */
export class SharedChromium {
  private browser: Promise<Browser> | null = null;
  private takers = 0;
  private readonly warn: (line: string) => void;

  constructor(private readonly options: SharedChromiumOptions) {
    this.warn = options.warn ?? ((line) => process.stderr.write(`chatbridge: ${line}\n`));
  }

  async take(): Promise<Browser> {
    this.takers++;
    try {
      return await this.current();
    } catch (error) {
      this.takers--;
      throw error;
    }
  }

  async giveBack(): Promise<void> {
    if (--this.takers > 0 || this.options.keepOpen || !this.browser) return;
    const last = this.browser;
    this.browser = null;
    await (await last.catch(() => null))?.close().catch(() => {});
  }

  /** The browser's path, for another launch of the same Chromium (a profile of the old layout). */
  executablePath(): string {
    const { executable } = this.options;
    return typeof executable === 'string' ? executable : executable();
  }

  /**
   * Runs `launch` with the sandbox when this machine gives one: decided at the first launch
   * of the process and said once when not.
   */
  async withSandbox<T>(launch: (keepSandbox: boolean) => Promise<T>): Promise<T> {
    if (sandbox === null && process.getuid?.() === 0) {
      sandbox = false;
      this.warn("the agents' Chromium runs without its sandbox: ChatBridge runs as root, where Chromium refuses to sandbox.");
    }
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

  private current(): Promise<Browser> {
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

  private async launch(): Promise<Browser> {
    // Loaded with the first browser: a service without agents does not hold it (some 90 MB resident).
    const { chromium } = await import('playwright-core');
    return this.withSandbox((keepSandbox) =>
      chromium.launch({
        executablePath: this.executablePath(),
        headless: this.options.headless ?? true,
        chromiumSandbox: keepSandbox,
        ...SIGNALS_LEFT_TO_THE_SERVICE,
        // Names the browser in the process list by its agents' data folder, as a profile
        // folder did (`pkill -f`, or a test that kills its own); Chromium ignores a switch it
        // does not know.
        args: [...BACKGROUND_OFF, `${HOST_SWITCH}=${this.options.name}`],
      }),
    );
  }
}
