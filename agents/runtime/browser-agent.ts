import type { Page } from 'playwright-core';
import type { Agent, AgentReadiness, AgentResult, AgentTask } from '../../main/core/agent.js';
import { AgentFailure } from '../../main/core/agent.js';
import type { BrowserHost, BrowserSession } from '../../main/core/browser-host.js';
import { openNewChat, runTurn, waitUntilReady } from '../providers/flow.js';
import type { ProviderSite } from '../providers/site.js';

/** After this long without a job, the login state is checked again before the next one. */
const RECHECK_AFTER_MS = 10 * 60_000;
/** A browser that keeps dying is restarted less and less often. */
const RESTART_DELAYS_MS = [0, 1_000, 5_000, 30_000, 120_000];

/**
 * Lets a page that waits for its next job rest. Providers focus their composer when a chat
 * opens, and a focused editor's blinking caret has Chromium repaint twice a second for as
 * long as the agent idles: measured on a simulated page with its composer focused, 0.6 to
 * 0.8 % of a core per agent (renderer and GPU process), against 0.03 % once blurred. The
 * next job focuses the composer itself as it inserts the prompt. Freezing the page between
 * jobs (Page.setWebLifecycleState) would also stop a site's timers, but Chromium ignores it
 * for a visible page, and a headless page is always visible (minimised or behind another
 * tab alike), so there is nothing to thaw.
 */
async function rest(page: Page): Promise<void> {
  await page
    .evaluate(() => {
      const focused = document.activeElement;
      if (focused instanceof HTMLElement && focused !== document.body) focused.blur();
    })
    .catch(() => {
      // The page moved on meanwhile (a redirect to a login page): its next check says so.
    });
}

/**
 * One provider account in one persistent browser session, one job at a time. Between jobs
 * it keeps a fresh chat open so the next job starts without a page load; while idle it does
 * nothing at all, and its page rests (no focused composer). It restarts its browser when the
 * browser dies.
 */
export class BrowserAgent implements Agent {
  readonly provider;
  private session: BrowserSession | null = null;
  private state: AgentReadiness = 'error';
  private why = 'starting';
  private readonly listeners: (() => void)[] = [];
  /** The page shows a fresh chat, checked ready. */
  private fresh = false;
  private lastJobAt = 0;
  private restarts = 0;
  private closed = false;
  private starting: Promise<void> | null = null;
  /** Opening a fresh chat after the last job; the next job waits for it. */
  private preparing: Promise<void> = Promise.resolve();

  constructor(
    readonly id: string,
    private readonly site: ProviderSite,
    private readonly host: BrowserHost,
  ) {
    this.provider = site.provider;
  }

  readiness(): AgentReadiness {
    return this.state;
  }

  detail(): string {
    return this.why;
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Opens the browser and a fresh chat; the agent is idle if logged in, needs_login if not. */
  start(): Promise<void> {
    this.starting ??= this.open().finally(() => (this.starting = null));
    return this.starting;
  }

  async run(task: AgentTask): Promise<AgentResult> {
    await this.preparing;
    if (!this.session) throw new AgentFailure('agent_lost', 'The browser is not running.');
    const { page } = this.session;
    try {
      if (!this.fresh || Date.now() - this.lastJobAt > RECHECK_AFTER_MS) {
        if (task.conversation === null) await openNewChat(page, this.site);
      }
      if (task.conversation !== null) await page.goto(task.conversation, { waitUntil: 'domcontentloaded' });
      this.fresh = false;
      await waitUntilReady(page, this.site);
      const result = await runTurn(page, this.site, task);
      this.restarts = 0;
      return result;
    } catch (error) {
      throw this.classify(error, task.signal);
    } finally {
      this.lastJobAt = Date.now();
      this.preparing = this.prepareNext();
    }
  }

  /** The agent's page, for a person to log in or watch (null while the browser restarts). */
  page() {
    return this.session?.page ?? null;
  }

  /** After the user logged in (or solved a challenge) in the agent's page: check again. */
  async recheck(): Promise<void> {
    if (!this.session) return this.start();
    try {
      await openNewChat(this.session.page, this.site);
      await waitUntilReady(this.session.page, this.site);
      await rest(this.session.page);
      this.fresh = true;
      this.set('idle', 'ready');
    } catch (error) {
      this.classify(error);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.session?.close();
    this.session = null;
  }

  private async open(): Promise<void> {
    try {
      this.session = await this.host.open(this.id);
      this.session.onLost(() => this.lost());
      await openNewChat(this.session.page, this.site);
      await waitUntilReady(this.session.page, this.site);
      await rest(this.session.page);
      this.fresh = true;
      this.lastJobAt = Date.now();
      this.set('idle', 'ready');
    } catch (error) {
      const failure = this.classify(error);
      if (failure.kind === 'agent_lost') this.lost();
    }
  }

  /** Opens a fresh chat for the next job, unless a failure left the agent needing the user. */
  private async prepareNext(): Promise<void> {
    if (!this.session || this.state !== 'idle') return;
    try {
      await openNewChat(this.session.page, this.site);
      await waitUntilReady(this.session.page, this.site);
      await rest(this.session.page);
      this.fresh = true;
    } catch (error) {
      this.classify(error);
    }
  }

  /** Turns whatever went wrong into a typed failure, updating the agent's own state. */
  private classify(error: unknown, signal?: AbortSignal): AgentFailure {
    if (signal?.aborted) return new AgentFailure('agent_lost', `Stopped: ${String(signal.reason)}`);
    if (error instanceof AgentFailure) {
      if (error.kind === 'logged_out') this.set('needs_login', 'log in to the provider again');
      if (error.kind === 'challenge') this.set('error', 'the provider shows a verification challenge');
      return error;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (/Target .*closed|browser has been closed|Navigation failed because page crashed|has been closed/i.test(message)) {
      return new AgentFailure('agent_lost', `The browser went away: ${message}`);
    }
    return new AgentFailure('provider_error', message.split('\n')[0]!);
  }

  /** The browser or page died: restart it, backing off if it keeps dying. */
  private lost(): void {
    if (this.closed) return;
    this.session = null;
    this.fresh = false;
    this.set('error', 'restarting the browser');
    const delay = RESTART_DELAYS_MS[Math.min(this.restarts++, RESTART_DELAYS_MS.length - 1)]!;
    setTimeout(() => void this.start(), delay).unref();
  }

  private set(state: AgentReadiness, detail: string): void {
    this.why = detail;
    if (state === this.state) return;
    this.state = state;
    for (const l of this.listeners) l();
  }
}
