import type { Frame, Page } from 'playwright-core';
import type { AgentReadiness } from '../../main/core/agent.js';
import type { LoginWindow } from '../../main/core/agent-control.js';
import { Listeners } from '../../main/core/listeners.js';
import type { ProviderSite } from '../providers/site.js';

/** The agent being paired, as the pairing needs it (a BrowserAgent in the app). */
export interface PairingAgent {
  readiness(): AgentReadiness;
  /** Opens a fresh chat and updates readiness: idle when logged in. */
  recheck(): Promise<unknown>;
}

/** The agent's page, as the person in the login window sees it. */
export interface PairingPage {
  url(): string;
  goto(url: string): Promise<void>;
  /** Every address the top frame reaches, full loads and in-page moves alike; returns an unsubscribe. */
  onNavigated(listener: (url: string) => void): () => void;
}


/**
 * login: the window shows the provider's login page, waiting for the person.
 * checking: the page came back to the provider's own site after a login: is the agent in?
 * paired: the agent is idle. closed: the person closed the window first.
 */
export type PairingStep = 'login' | 'checking' | 'paired' | 'closed';

/**
 * Pairing an account (and logging in again later) with the agent's own page: the window
 * shows it at the provider's login page, and each time the page comes back to the
 * provider's site from a login page the agent checks whether it is logged in. The check
 * navigates the page itself, so navigations during a check are not the person's and are
 * ignored. Resolves with the last step, `paired` or `closed`.
 */
export class Pairing {
  private current: PairingStep = 'login';
  private readonly steps = new Listeners<[PairingStep]>();
  private readonly done: Promise<PairingStep>;
  private finish: (step: PairingStep) => void = () => {};

  constructor(
    private readonly agent: PairingAgent,
    private readonly site: ProviderSite,
    private readonly page: PairingPage,
    private readonly window: LoginWindow,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  step(): PairingStep {
    return this.current;
  }

  onStep(listener: (step: PairingStep) => void): void {
    this.steps.on(listener);
  }

  /** Shows the window; already logged in (the partition kept its cookies) means paired at once. */
  async run(): Promise<PairingStep> {
    this.window.onClosed(() => this.end('closed'));
    this.window.show();
    if (this.agent.readiness() === 'idle') {
      this.end('paired');
      return this.done;
    }
    const unsubscribe = this.page.onNavigated((url) => void this.navigated(url));
    void this.done.then(unsubscribe);
    if (!this.site.loginUrl.test(this.page.url())) {
      await this.page.goto(new URL(this.site.loginUrlPath, this.site.baseUrl).href).catch(() => {
        // The person can still log in from whatever the page shows; a check follows their navigation.
      });
    }
    return this.done;
  }

  /**
   * The person says they are done (the dashboard's "Log in" again): for sites that log in
   * inside a dialog, without ever leaving the page.
   */
  checkNow(): Promise<void> {
    return this.check();
  }

  private async navigated(url: string): Promise<void> {
    if (this.onProviderSite(url) && !this.site.loginUrl.test(url)) await this.check();
  }

  private async check(): Promise<void> {
    if (this.current !== 'login') return;
    this.set('checking');
    await this.agent.recheck();
    // The person may have closed the window meanwhile.
    if (this.step() !== 'checking') return;
    if (this.agent.readiness() === 'idle') this.end('paired');
    else this.set('login');
  }

  private onProviderSite(url: string): boolean {
    try {
      return new URL(url).host === new URL(this.site.baseUrl).host;
    } catch {
      return false;
    }
  }

  private end(step: 'paired' | 'closed'): void {
    if (this.current === 'paired' || this.current === 'closed') return;
    this.set(step);
    if (step === 'paired') this.window.close();
    this.finish(step);
  }

  private set(step: PairingStep): void {
    this.current = step;
    this.steps.emit(step);
  }
}

/** A Playwright page (the agent's, on either host) as the pairing watches it. */
export function pairingPage(page: Page): PairingPage {
  return {
    url: () => page.url(),
    goto: async (url) => {
      await page.goto(url, { waitUntil: 'domcontentloaded' });
    },
    onNavigated: (listener) => {
      const onFrame = (frame: Frame) => {
        if (frame === page.mainFrame()) listener(frame.url());
      };
      page.on('framenavigated', onFrame);
      return () => page.off('framenavigated', onFrame);
    },
  };
}
