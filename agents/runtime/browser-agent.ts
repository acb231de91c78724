import type { Page } from 'playwright-core';
import type { Agent, AgentNote, AgentReadiness, AgentResult, AgentTask, CollectTask } from '../../main/core/agent.js';
import { AccountLocked, AgentFailure, SITE_CHANGED_DETAIL } from '../../main/core/agent.js';
import { AgentNotRunning } from '../../main/core/agent-control.js';
import type { BrowserHost, BrowserSession } from '../../main/core/browser-host.js';
import { systemClock, type Clock } from '../../main/core/clock.js';
import { Listeners } from '../../main/core/listeners.js';
import type { ProxySetting } from '../../main/core/proxy.js';
import { AgentBusy } from '../../main/core/site-check.js';
import { collectAnswer } from '../providers/collect.js';
import { FLOW_LIMITS, flowContext, inPage, type FlowContext, type FlowLimits } from '../providers/flow-context.js';
import { openNewChat, runTurn, waitUntilReady, type FinishMemory } from '../providers/flow.js';
import { pageWorld } from '../providers/page-world.js';
import { limitLiftsAt } from '../providers/limit-reset.js';
import type { ProviderSite } from '../providers/site.js';
import { TimeoutBundle, type DiagnosticsKeeper } from './diagnostics.js';
import { inspectSite, type PageInspection } from './site-check.js';

/** After this long without a job, the login state is checked again before the next one. */
export const RECHECK_AFTER_MS = 10 * 60_000;
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
 * tab alike), so there is nothing to thaw. It also makes now what the next job's first
 * copy in this document would otherwise pay for on its way (PageWorld.warm).
 */
async function rest(page: Page): Promise<void> {
  const world = pageWorld(page);
  await world
    .run(() => {
      const focused = document.activeElement;
      if (focused instanceof HTMLElement && focused !== document.body) focused.blur();
    }, undefined)
    .catch(() => {
      // The page moved on meanwhile (a redirect to a login page): its next check says so.
    });
  await world.warm();
}

/**
 * One provider account in one persistent browser session, one job at a time. Between jobs
 * it keeps a fresh chat open so the next job starts without a page load; while idle it does
 * nothing at all, and its page rests (no focused composer). It restarts its browser when the
 * browser dies. When it is set aside (`error`: a changed site, a verification, a page that
 * would not load), the pool has it look again (`recheck`) on a back-off until it works.
 */
export class BrowserAgent implements Agent {
  readonly provider;
  private session: BrowserSession | null = null;
  private state: AgentReadiness = 'error';
  private why = 'starting';
  private readonly changes = new Listeners();
  /** The page shows a fresh chat, checked ready. */
  private fresh = false;
  private lastJobAt = 0;
  private restarts = 0;
  private closed = false;
  private starting: Promise<void> | null = null;
  /** The browser being launched: `close` waits for it, so no browser outlives the agent. */
  private launching: Promise<BrowserSession> | null = null;
  /** Opening a fresh chat after the last job; the next job waits for it. */
  private preparing: Promise<void> = Promise.resolve();
  private readonly notes = new Listeners<[AgentNote]>();
  /** A look at the page under way: a second caller (the schedule, Check now, a login) shares it. */
  private rechecking: Promise<boolean> | null = null;
  /** A job runs. */
  private running = false;
  /** A site check is under way: it ends once the fresh chat after it is open. */
  private checking: Promise<void> | null = null;
  /** The site said the account is locked: only a check a person asks for (`recheck`, not the pool's own looks) ends it. */
  private locked = false;
  /** What the agent's answers have shown of the site's finished signal. */
  private readonly finishes: FinishMemory = { markerSeen: false };

  /**
   * `siteOf` gives the provider's site as it is now: a user's override of its pack can
   * change between jobs. `diagnostics` keeps a bundle of the page for each failed attempt.
   * `egress` gives its proxy at each launch (it throws BadProxy for one that is not valid).
   * `limits` are the flow's waits for a missing role (shortened by tests of that failure).
   * `clock` is the service's: the look after a long idle, a limit's reset time and the
   * restarts' back-off follow it (the flow's waits on a live page follow the page's own time,
   * `pageTime` in flow-context.ts).
   */
  constructor(
    readonly id: string,
    private readonly siteOf: () => ProviderSite,
    private readonly host: BrowserHost,
    private readonly diagnostics: DiagnosticsKeeper | null = null,
    private readonly egress: () => ProxySetting | null = () => null,
    private readonly limits: FlowLimits = FLOW_LIMITS,
    private readonly clock: Clock = systemClock,
  ) {
    this.provider = siteOf().provider;
  }

  private get site(): ProviderSite {
    return this.siteOf();
  }

  readiness(): AgentReadiness {
    return this.state;
  }

  detail(): string {
    return this.why;
  }

  onChange(listener: () => void): void {
    this.changes.on(listener);
  }

  awaitsPerson(): boolean {
    return this.locked;
  }

  onNote(listener: (note: AgentNote) => void): void {
    this.notes.on(listener);
  }

  /** Opens the browser and a fresh chat; the agent is idle if logged in, needs_login if not. */
  start(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.starting ??= this.open().finally(() => (this.starting = null));
    return this.starting;
  }

  run(task: AgentTask): Promise<AgentResult> {
    return this.onPage(task, async (ctx) => {
      if (!this.fresh || this.clock.now() - this.lastJobAt > RECHECK_AFTER_MS) {
        if (task.conversation === null) await openNewChat(ctx);
      }
      if (task.conversation !== null) await inPage(ctx, ctx.page.goto(task.conversation, { waitUntil: 'domcontentloaded' }));
      this.fresh = false;
      await waitUntilReady(ctx);
      return runTurn(ctx, task, this.finishes);
    });
  }

  collect(task: CollectTask): Promise<AgentResult> {
    return this.onPage(task, (ctx) => {
      this.fresh = false;
      return collectAnswer(ctx, task, this.finishes);
    });
  }

  /**
   * Looks at the page role by role (inspectSite), with the pack in force now, and afterwards
   * opens a fresh chat as after a recheck: a check that finds the page healthy again makes
   * the agent idle. A check is not an error: the agent keeps its state, the caller keeps jobs
   * away meanwhile (the admin console marks the agent busy) and a job handed over all the
   * same waits for the check to end.
   */
  async checkSite(send: boolean): Promise<{ site: ProviderSite; inspection: PageInspection }> {
    if (this.running) throw new AgentBusy('This agent is running a job: check its site once the job is done.');
    if (this.checking) throw new AgentBusy("This agent's site is being checked already.");
    if (!this.session) throw new AgentNotRunning("This agent's browser is not running right now; its state says why.");
    const { page } = this.session;
    let done!: () => void;
    this.checking = new Promise((resolve) => (done = resolve));
    try {
      await this.preparing;
      const site = this.site;
      this.fresh = false;
      return { site, inspection: await inspectSite(this.context(page, site), send) };
    } finally {
      // The fresh chat is part of the check: a job given the agent when it returns finds it open.
      await this.look().catch(() => false);
      this.checking = null;
      done();
    }
  }

  /**
   * A job's work on the page (a run, or a collection): once a site check and the fresh chat
   * after the last job are done; what goes wrong typed (classify) and kept for the person who
   * looks into it (a timed-out attempt's page as its time ran out); then a fresh chat again.
   * `work`'s context has the signal that the bundle of a timed-out attempt holds back until taken.
   */
  private async onPage(task: Pick<AgentTask, 'prompt' | 'signal' | 'label'>, work: (ctx: FlowContext) => Promise<AgentResult>): Promise<AgentResult> {
    this.running = true;
    try {
      await this.checking;
      await this.preparing;
      if (!this.session) throw new AgentFailure('agent_lost', 'The browser is not running.');
      const { page } = this.session;
      const site = this.site;
      const timeout = new TimeoutBundle(task.signal, () =>
        this.keepDiagnostics(page, site, task, new AgentFailure('timed_out', `${site.name}: the attempt ran out of its time.`)),
      );
      try {
        const result = await work(this.context(page, site, timeout.signal));
        this.restarts = 0;
        return result;
      } catch (error) {
        const failure = this.classify(error, task.signal, site);
        if (!task.signal.aborted && failure.kind !== 'agent_lost') await this.keepDiagnostics(page, site, task, failure);
        throw failure;
      } finally {
        // The page stays as it is until a timed-out attempt's bundle has it.
        await timeout.settled();
        this.lastJobAt = this.clock.now();
        this.preparing = this.prepareNext();
      }
    } finally {
      this.running = false;
    }
  }

  /** The agent's page, for a person to log in or watch (null while the browser restarts). */
  page() {
    return this.session?.page ?? null;
  }

  /**
   * After the user logged in (or solved a challenge) in the agent's page, or when a page set
   * aside or resting is due another look: check again. Resolves to whether the page is ready
   * for a job now (a limit notice on it says no, and leaves the state as it is).
   */
  recheck(): Promise<boolean> {
    if (this.checking) return Promise.resolve(false); // the check ends with one
    return this.look();
  }

  private look(): Promise<boolean> {
    this.rechecking ??= this.lookAgain().finally(() => (this.rechecking = null));
    return this.rechecking;
  }

  private async lookAgain(): Promise<boolean> {
    // Still starting (or restarting): the start's own look is the one to wait for.
    if (this.starting || !this.session) {
      await this.start();
      return this.state === 'idle';
    }
    // The fresh chat opened after the last job first: two navigations at once abort each other.
    await this.preparing;
    if (!this.session) return this.lookAgain();
    try {
      const ctx = this.context(this.session.page);
      await openNewChat(ctx);
      await waitUntilReady(ctx);
      await rest(ctx.page);
      this.fresh = true;
      // Only a person asks for a look while the account is locked (the pool plans none).
      this.locked = false;
      this.set('idle', 'ready');
      return true;
    } catch (error) {
      this.notReady(this.classify(error));
      return false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    // A browser still launching is closed once it is up, rather than left running.
    const launched = await this.launching?.catch(() => null);
    await launched?.close();
    await this.session?.close();
    this.session = null;
  }

  private async open(): Promise<void> {
    try {
      this.launching = this.host.open(this.id, { proxy: this.egress(), siteOrigin: new URL(this.site.baseUrl).origin });
      const session = await this.launching.finally(() => (this.launching = null));
      if (this.closed) return await session.close();
      this.session = session;
      this.session.onLost(() => this.lost());
      const ctx = this.context(this.session.page);
      await openNewChat(ctx);
      await waitUntilReady(ctx);
      await rest(ctx.page);
      this.fresh = true;
      this.lastJobAt = this.clock.now();
      this.set('idle', 'ready');
    } catch (error) {
      const failure = this.classify(error);
      if (failure.kind === 'agent_lost') this.lost();
      else this.notReady(failure);
    }
  }

  /**
   * A look at the page (at the start, or again) found it unable to take a job for a reason
   * its own state does not tell yet (the page did not load, an error card): set aside with
   * that reason, so that the next scheduled look tries again.
   */
  private notReady(failure: AgentFailure): void {
    if (failure.kind === 'provider_error' || failure.kind === 'timed_out') this.set('error', `the page is not ready for a job: ${failure.message}`);
  }

  /** Opens a fresh chat for the next job, unless a failure left the agent needing the user. */
  private async prepareNext(): Promise<void> {
    if (!this.session || this.state !== 'idle') return;
    try {
      const ctx = this.context(this.session.page);
      await openNewChat(ctx);
      await waitUntilReady(ctx);
      await rest(ctx.page);
      this.fresh = true;
    } catch (error) {
      this.classify(error);
    }
  }

  /**
   * Turns whatever went wrong into a typed failure, updating the agent's own state. A usage
   * limit gets the time it lifts, read from its notice the way `site`'s pack says, from now
   * on the agent's clock.
   */
  private classify(error: unknown, signal?: AbortSignal, site = this.site): AgentFailure {
    if (signal?.aborted) return new AgentFailure('agent_lost', `Stopped: ${String(signal.reason)}`);
    if (error instanceof AccountLocked) {
      this.locked = true;
      this.set('error', `account locked: ${error.message}`);
      return error;
    }
    if (error instanceof AgentFailure) {
      if (error.kind === 'logged_out') this.set('needs_login', 'log in to the provider again');
      if (error.kind === 'challenge') this.set('error', 'the provider shows a verification challenge');
      // Set aside, saying what is missing; the pool has it look again on its back-off.
      if (error.kind === 'site_changed') this.set('error', `${SITE_CHANGED_DETAIL}${error.message}`);
      if (error.kind === 'rate_limited' && error.retryAt === undefined) {
        return new AgentFailure('rate_limited', error.message, limitLiftsAt(site.limitReset, error.message, new Date(this.clock.now())) ?? undefined);
      }
      return error;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (/Target .*closed|browser has been closed|Navigation failed because page crashed|has been closed/i.test(message)) {
      return new AgentFailure('agent_lost', `The browser went away: ${message}`);
    }
    return new AgentFailure('provider_error', message.split('\n')[0]!);
  }


  private readonly note = (note: AgentNote): void => {
    this.notes.emit(note);
  };

  /** The flow's context on `page`: a job's, with its signal, or one of the agent's own looks, which nothing cancels. */
  private context(page: Page, site = this.site, signal?: AbortSignal): FlowContext {
    return flowContext(page, site, { notes: this.note, limits: this.limits, signal });
  }

  /** Keeps what the page looked like when an attempt failed (never its words), for the person who looks into it. */
  private async keepDiagnostics(page: Page, site: ProviderSite, task: Pick<AgentTask, 'prompt' | 'label'>, failure: AgentFailure): Promise<void> {
    if (!this.diagnostics) return;
    await this.diagnostics.keep({ label: task.label, agentId: this.id, page, site, failure, at: this.clock.now(), secrets: [task.prompt] }).catch((error: unknown) => {
      this.note({ level: 'warn', message: `could not keep a diagnostic bundle (${(error as Error).message.split('\n')[0]})` });
    });
  }

  /** The browser or page died: restart it, backing off if it keeps dying. */
  private lost(): void {
    if (this.closed) return;
    this.session = null;
    this.fresh = false;
    this.set('error', 'restarting the browser');
    const delay = RESTART_DELAYS_MS[Math.min(this.restarts++, RESTART_DELAYS_MS.length - 1)]!;
    // A scheduled look may have started it meanwhile.
    this.clock.setTimer(() => {
      if (!this.session && !this.closed) void this.start();
    }, delay);
  }

  private set(state: AgentReadiness, detail: string): void {
    this.why = detail;
    if (state === this.state) return;
    this.state = state;
    this.changes.emit();
  }
}
