import type { AccountView, AdminState, AgentPatch, AgentView, JobDetail, JobSummary, KeyCreate, KeyView, SettingsPatch, WebhookLog } from '../api/admin-schemas.js';
import type { DiagnosticBundleView, SiteCheckView } from '../api/admin-schemas.js';
import type { AgentCreate, LogEntryView, UsageRange, UsageView, ViewInput } from '../api/admin-schemas.js';
import { AgentNotRunning, type AgentControl, type AgentScreen } from '../core/agent-control.js';
import { attemptRecords, jobObject, type Profile } from '../api/profile.js';
import { timestamp } from '../core/timestamps.js';
import type { Completions } from './completions.js';
import type { Clock } from '../core/clock.js';
import { ApiError, invalid } from '../core/errors.js';
import type { DiagnosticManifest } from '../core/diagnostics.js';
import { AgentBusy } from '../core/site-check.js';
import type { BundleFile, DiagnosticBundles } from '../diagnostics/bundles.js';
import { PROVIDER_NAMES, type Provider } from '../core/providers.js';
import { BadProxy, maskProxy, parseProxy } from '../core/proxy.js';
import type { AccountStore } from '../keys/account-store.js';
import type { ApiKey, KeyStore } from '../keys/key-store.js';
import { HOUR_MS } from '../queue/hourly-usage.js';
import type { AgentPool } from '../queue/agent-pool.js';
import type { ClusterAgents } from '../queue/cluster-agents.js';
import type { HourlyUsage } from '../queue/hourly-usage.js';
import type { LogBook, LogEntry, LogLevel } from '../logs/log-book.js';
import type { JobEvents } from '../queue/job-events.js';
import { EVERY_ACCOUNT, type JobRow } from '../core/jobs.js';
import type { JobStore } from '../queue/job-store.js';
import type { Scheduler } from '../queue/scheduler.js';
import { waitSentence } from '../core/wait-reason.js';
import type { SettingsStore } from '../settings/settings-store.js';
import type { StatusReport } from './status-report.js';
import { NoDelivery, type WebhookDeliveries } from '../webhooks/deliveries.js';
import type { UsageReport } from './usage-report.js';
import type { SigningSecret } from '../webhooks/signing-secret.js';

const DAY_MS = 86_400_000;
/** State changes closer together than this reach the dashboard as one update. */
const STATE_DEBOUNCE_MS = 200;

const ts = (ms: number | null) => (ms === null ? null : timestamp(ms));
/** From acceptance to the end in ms (the timestamps have whole seconds only); null while unfinished. */
const tookMs = (job: JobRow) => (job.finished_at === null ? null : job.finished_at - job.created_at);

/**
 * What the dashboard reads and changes, without HTTP: the account's state (agents,
 * settings, status), keys, recent jobs with their details, webhooks, and a feed of changes
 * for its live view.
 */
export class AdminConsole {
  constructor(
    private readonly deps: {
      version: string;
      dataDir: string;
      store: JobStore;
      pool: AgentPool;
      /** Every device's agents: the status the dashboard shows follows them. */
      cluster: ClusterAgents;
      usage: HourlyUsage;
      settings: SettingsStore;
      keys: KeyStore;
      accounts: AccountStore;
      profile: Profile;
      report: StatusReport;
      completions: Completions;
      scheduler: Scheduler;
      events: JobEvents;
      webhooks: WebhookDeliveries;
      signingSecret: SigningSecret;
      log: LogBook;
      usageReport: UsageReport;
      diagnostics: DiagnosticBundles;
      clock: Clock;
    },
  ) {}

  /** The agents' browsers, once the process running them has started them. */
  private control: AgentControl | null = null;
  /** Listeners of `watch`, told when a login step changes. */
  private readonly loginListeners = new Set<() => void>();
  /** Listeners of `watch`, told the id of each job deleted here. */
  private readonly deletionListeners = new Set<(id: string) => void>();

  attachAgents(control: AgentControl): void {
    this.control = control;
    control.onChange(() => {
      for (const l of this.loginListeners) l();
    });
  }

  async state(): Promise<AdminState> {
    const { settings, pool } = this.deps;
    const s = settings.get();
    return {
      version: this.deps.version,
      profile: this.deps.profile.name,
      data_dir: this.deps.dataDir,
      settings: {
        paused: s.paused,
        rotation: s.rotation,
        global_cap: s.globalCap,
        provider_caps: s.providerCaps,
        retention_days: s.retentionDays,
        pause_ms: s.pauseMs,
      },
      agents: pool.list().map((a) => this.agentView(a.id)),
      status: await this.deps.report.status(EVERY_ACCOUNT),
    };
  }

  /** The service hears each change (SettingsStore.onChange) and wakes the scheduler. */
  async updateSettings(patch: SettingsPatch): Promise<AdminState> {
    const { settings } = this.deps;
    if (patch.paused !== undefined) await settings.setPaused(patch.paused);
    if (patch.rotation !== undefined) await settings.setRotation(patch.rotation);
    if (patch.global_cap !== undefined) await settings.setGlobalCap(patch.global_cap);
    if (patch.retention_days !== undefined) await settings.setRetentionDays(patch.retention_days);
    if (patch.pause_ms !== undefined) await settings.setPauseMs(patch.pause_ms);
    for (const [provider, cap] of Object.entries(patch.provider_caps ?? {})) {
      if (cap !== undefined) await settings.setProviderCap(provider as Provider, cap);
    }
    return this.state();
  }

  updateAgent(id: string, patch: AgentPatch): AgentView {
    const { pool, scheduler } = this.deps;
    if (!pool.get(id)) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    if (patch.name !== undefined) pool.rename(id, patch.name.trim() || pool.get(id)!.name);
    if (patch.enabled !== undefined) pool.setEnabled(id, patch.enabled);
    if (patch.cap_per_hour !== undefined) pool.setCap(id, patch.cap_per_hour);
    if (patch.pause_ms !== undefined) pool.setPause(id, patch.pause_ms);
    // Stored as given once it checks out; the agent runtime restarts the agent's browser with it.
    if (patch.proxy !== undefined) pool.setProxy(id, patch.proxy === null || patch.proxy.trim() === '' ? null : checkedProxy(patch.proxy));
    scheduler.wake();
    return this.agentView(id);
  }

  /**
   * "Add account": a new agent, its browser started, and a login shown in its page (in the
   * dashboard headless, in a window of the desktop app). The agent is idle once logged in.
   */
  async addAgent(input: AgentCreate): Promise<AgentView> {
    const control = this.agentControl();
    const { pool } = this.deps;
    const taken = new Set(pool.list().map((a) => a.name));
    let name = input.name?.trim();
    if (!name) {
      let n = pool.list().filter((a) => a.provider === input.provider).length + 1;
      while (taken.has(`${PROVIDER_NAMES[input.provider]} ${n}`)) n++;
      name = `${PROVIDER_NAMES[input.provider]} ${n}`;
    }
    const record = pool.create(input.provider, name);
    this.deps.log.info('agent', `${name}: added (${PROVIDER_NAMES[input.provider]}), opening its login page`);
    await control.start(record.id);
    // A browser that did not start leaves the agent in `error`, with its reason: the card shows it.
    await control.logIn(record.id).catch((error: unknown) => {
      if (!(error instanceof AgentNotRunning)) throw error;
    });
    return this.agentView(record.id);
  }

  /**
   * Removes an agent and its login. Refused while it runs a job, or while queued jobs
   * continue one of its conversations (only it can run them).
   */
  async removeAgent(id: string): Promise<void> {
    const { pool, scheduler, store } = this.deps;
    if (!pool.get(id)) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    const pinned = (await store.queuedInOrder()).filter((job) => job.req_agent_id === id).length;
    if (pinned > 0) {
      throw new ApiError('CONFLICT', `${pinned} queued job${pinned === 1 ? '' : 's'} can only run on this agent. Cancel them or let them run, then remove it.`);
    }
    if (!pool.get(id)) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    if (scheduler.isRunningOn(id)) {
      throw new ApiError('CONFLICT', 'This agent is running a job. Pause it, wait for the job to end (or cancel it), then remove it.');
    }
    // The row goes first, in this same turn as the running check, so no job can be dispatched to it meanwhile.
    const { name } = pool.get(id)!;
    pool.remove(id);
    try {
      await this.control?.remove(id);
      this.deps.log.info('agent', `${name}: removed, with its login`);
    } catch (error) {
      // The agent is gone either way; what is left on disk is the person's to know about.
      this.deps.log.warn('agent', `${name}: removed, but its browser profile could not be deleted: ${(error as Error).message}`);
    }
  }

  /** Logs an agent in again, or, while its login is shown, checks now whether it is logged in. */
  async logIn(id: string): Promise<AgentView> {
    const control = this.agentControl();
    if (!this.deps.pool.get(id)) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    try {
      await control.logIn(id);
    } catch (error) {
      if (error instanceof AgentNotRunning) throw new ApiError('CONFLICT', error.message);
      throw error;
    }
    return this.agentView(id);
  }

  /**
   * "Check now" and `chatbridge agents check`: the agent looks at its page again at once,
   * instead of at its next scheduled look, and says where it stands. During a login this is
   * that login's "I have logged in"; an agent running a job is left alone (it is fine). A
   * page ready for a job also ends a rest after a usage limit: the provider lifted it sooner
   * than it said.
   */
  async checkAgent(id: string): Promise<AgentView> {
    const { pool, scheduler, log } = this.deps;
    const record = pool.get(id);
    if (!record) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    const control = this.agentControl();
    if (control.loginStep(id)) return this.logIn(id);
    if (scheduler.isRunningOn(id)) return this.agentView(id);
    // Marked busy meanwhile, so no job is handed to a page that is being looked at.
    pool.setBusy(id, true);
    try {
      if ((await control.recheck(id)) && pool.cooldownUntil(id) !== null) {
        pool.endCooldown(id);
        log.info('agent', `${record.name}: checked on request, no usage limit shows any more: it takes jobs again`);
      }
    } catch (error) {
      if (error instanceof AgentBusy || error instanceof AgentNotRunning) throw new ApiError('CONFLICT', error.message);
      throw error;
    } finally {
      pool.setBusy(id, false);
    }
    return this.agentView(id);
  }

  /**
   * "Check site" and `chatbridge sites check`: which cue finds each role of the agent's pack
   * on a fresh chat (and, with `send`, on the answer to a probe prompt). Refused while the
   * agent runs a job or a login.
   */
  async checkSite(id: string, send: boolean): Promise<SiteCheckView> {
    const control = this.agentControl();
    const record = this.deps.pool.get(id);
    if (!record) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    if (this.deps.scheduler.isRunningOn(id)) throw new ApiError('CONFLICT', 'This agent is running a job: check its site once the job is done.');
    let check;
    // Busy meanwhile, as for "Check now": no job is handed to a page being looked at, and a check is no error.
    this.deps.pool.setBusy(id, true);
    try {
      check = await control.checkSite(id, { send });
    } catch (error) {
      if (error instanceof AgentBusy || error instanceof AgentNotRunning) throw new ApiError('CONFLICT', error.message);
      throw error;
    } finally {
      this.deps.pool.setBusy(id, false);
    }
    const missing = check.roles.filter((r) => r.status === 'missing').map((r) => r.role);
    const outcome = check.problem ?? (missing.length ? `missing ${missing.join(', ')}` : 'every role found');
    this.deps.log.add(check.ok ? 'info' : 'warn', 'agent', `${record.name}: site check${send ? ' with a probe' : ''}: ${outcome}`);
    return { ...check, at: timestamp(check.at) };
  }

  endLogIn(id: string): AgentView {
    if (!this.deps.pool.get(id)) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    this.control?.endLogIn(id);
    return this.agentView(id);
  }

  /** The agent's page, to watch (and, during a login, to use) from the dashboard. */
  screen(id: string): AgentScreen {
    const control = this.agentControl();
    if (!this.deps.pool.get(id)) throw new ApiError('NOT_FOUND', `No agent ${id}.`);
    const screen = control.screen(id);
    if (!screen) throw new ApiError('CONFLICT', "This agent's browser is not running right now; its state says why.");
    return screen;
  }

  /** Clicks and keys reach an agent's page only during a login: otherwise a person could disturb a job. */
  async input(id: string, event: ViewInput): Promise<void> {
    const screen = this.screen(id);
    if (this.control?.loginStep(id) !== 'login') {
      throw new ApiError('CONFLICT', 'The page takes clicks and keys only while you log in; otherwise it is there to watch.');
    }
    try {
      await screen.input(event);
    } catch (error) {
      throw new ApiError('CONFLICT', `The page did not take it: ${(error as Error).message.split('\n')[0]}`);
    }
  }

  keys(): KeyView[] {
    return this.deps.keys.list().map(keyView);
  }

  async createKey(input: KeyCreate): Promise<{ key: KeyView; secret: string }> {
    const name = input.name.trim();
    if (!name) throw invalid('name', 'Give the key a name.');
    const expiresAt = input.expires_in_days ? this.deps.clock.now() + input.expires_in_days * DAY_MS : null;
    const { key, secret } = await this.deps.keys.create({ name, scopes: input.scopes, expiresAt, accountId: this.keyAccount(input.account_id) });
    return { key: keyView(key), secret };
  }

  /** The account a new key acts for: required in the hosted profile, refused in the personal one (one account). */
  private keyAccount(id: string | undefined): string | null {
    if (!this.deps.profile.accounts) {
      if (id !== undefined) throw invalid('account_id', 'This install is one account: keys take no account_id.');
      return null;
    }
    const account = id === undefined ? undefined : this.deps.accounts.get(id);
    if (!account) throw invalid('account_id', 'Say which account the key is for (account_id).');
    if (account.disabled_at !== null) throw invalid('account_id', `The account ${id} is disabled.`);
    return account.id;
  }

  /**
   * (hosted) Each account with its queue depth, attempts started this hour (rolling, as the
   * caps count) and today (since 00:00 UTC), its keys and its retention.
   */
  async accounts(): Promise<AccountView[]> {
    const { accounts, keys, store, clock } = this.deps;
    const now = clock.now();
    const starts = await store.startsByAccount(now - (now % DAY_MS), now - HOUR_MS);
    const allKeys = keys.list();
    const list = accounts.list();
    const depths = await Promise.all(list.map((a) => store.queuedCount(a.id)));
    return list.map((a, i) => ({
      id: a.id,
      name: a.name,
      retention_days: a.retention_days,
      disabled: a.disabled_at !== null,
      queue_depth: depths[i]!,
      used_this_hour: starts.get(a.id)?.hour ?? 0,
      used_today: starts.get(a.id)?.today ?? 0,
      keys: allKeys.filter((k) => k.account_id === a.id).map(keyView),
    }));
  }

  async revokeKey(id: string): Promise<KeyView> {
    const { keys } = this.deps;
    if (!keys.get(id)) throw new ApiError('NOT_FOUND', `No key ${id}.`);
    await keys.revoke(id);
    return keyView(keys.get(id)!);
  }

  /** The newest `limit` log entries at `minLevel` or above, oldest first. */
  logs(limit: number, minLevel: LogLevel = 'info'): LogEntryView[] {
    return this.deps.log.recent(Math.min(Math.max(limit, 1), this.deps.log.capacity), { minLevel }).map(logEntryView);
  }

  async recentJobs(limit: number): Promise<JobSummary[]> {
    return (await this.deps.store.recent(Math.min(Math.max(limit, 1), 500))).map((job) => this.summary(job));
  }

  async job(id: string): Promise<JobDetail> {
    const { completions, store } = this.deps;
    const job = await completions.get(id, EVERY_ACCOUNT);
    const rows = await store.attempts(id);
    const wait = completions.waitReason(job);
    return {
      job: jobObject(job, completions.agentName(job), await completions.queuePosition(job), wait ?? undefined),
      prompt: job.prompt,
      content_pruned_at: ts(job.content_pruned_at),
      took_ms: tookMs(job),
      attempts: attemptRecords(rows).map((record, i) => {
        const { started_at, ended_at, detail } = rows[i]!;
        const previous = rows[i - 1];
        // The queue wait before it: since sending, or since the previous attempt ended (a retry, a limit's re-queue).
        const waitedFrom = previous ? (previous.ended_at ?? previous.started_at) : job.created_at;
        // From the millisecond times: the whole-second timestamps round a short attempt to 0.
        return { ...record, run_ms: ended_at === null ? null : ended_at - started_at, waited_ms: Math.max(0, started_at - waitedFrom), detail };
      }),
      diagnostics: this.deps.diagnostics.ofJob(id).map(({ name, manifest }) => bundleView(name, manifest)),
      webhook: await this.webhookLog(id),
      waiting_because: wait ? waitSentence(wait) : null,
    };
  }

  /** One file of a diagnostic bundle, to download. */
  diagnosticFile(bundle: string, file: string): Promise<BundleFile> {
    return this.deps.diagnostics.file(bundle, file);
  }

  /** The dashboard's cancel: a caller waiting on the job gets 499, as with DELETE. */
  async cancel(id: string): Promise<JobDetail> {
    await this.deps.completions.cancel(id, EVERY_ACCOUNT);
    return this.job(id);
  }

  /**
   * Deletes a finished job, its attempts, its webhook log and this instance's diagnostic
   * bundles of it (another instance's go at its next retention sweep); GET answers 404 from then on.
   * A queued or running job is refused (409): cancelling it first settles whoever waits on it.
   */
  async deleteJob(id: string): Promise<void> {
    const result = await this.deps.store.delete(id);
    if (!result) throw new ApiError('NOT_FOUND', `No job ${id}.`);
    if (!result.deleted) {
      throw new ApiError('CONFLICT', `This job is ${result.status}: cancel it first, then delete it.`, { status: result.status });
    }
    await this.deps.diagnostics.removeOfJob(id);
    for (const l of [...this.deletionListeners]) l(id);
  }

  /** Usage history over `range`, optionally for one key and one agent. */
  async usage(range: UsageRange, filter: { keyId?: string; agentId?: string }, tzOffsetMinutes: number): Promise<UsageView> {
    if (Math.abs(tzOffsetMinutes) > 14 * 60) throw invalid('tz_offset', 'tz_offset is minutes east of UTC, from -840 to 840.');
    return this.deps.usageReport.view(range, filter, tzOffsetMinutes);
  }

  async redeliver(id: string): Promise<WebhookLog> {
    try {
      await this.deps.webhooks.redeliver(id);
    } catch (error) {
      if (error instanceof NoDelivery) throw new ApiError('NOT_FOUND', error.message);
      throw error;
    }
    return (await this.webhookLog(id))!;
  }

  signingSecret(): string {
    return this.deps.signingSecret.get();
  }

  rotateSigningSecret(): Promise<string> {
    return this.deps.signingSecret.rotate();
  }

  /**
   * Feeds the live view: `onState` after anything that changes the state (coalesced),
   * `onJob` for every job change, `onLog` (if given) for every new log entry, `onJobDeleted`
   * (if given) with the id of every job deleted. Returns the function that stops the feed.
   */
  watch(
    onState: (state: AdminState) => void,
    onJob: (job: JobSummary) => void,
    onLog?: (entry: LogEntryView) => void,
    onJobDeleted?: (id: string) => void,
  ): () => void {
    let timer: NodeJS.Timeout | null = null;
    const changed = () => {
      timer ??= setTimeout(() => {
        timer = null;
        void this.state().then(onState);
      }, STATE_DEBOUNCE_MS);
    };
    const unsubscribeJobs = this.deps.events.subscribeAll((job) => {
      onJob(this.summary(job));
      changed();
    });
    const unsubscribePool = this.deps.pool.onChange(changed);
    const unsubscribeCluster = this.deps.cluster.onChange(changed);
    // A pause or cap changed in another tab, the tray or the command line.
    const unsubscribeSettings = this.deps.settings.onChange(changed);
    this.loginListeners.add(changed);
    const unsubscribeLog = onLog ? this.deps.log.subscribe((entry) => onLog(logEntryView(entry))) : () => {};
    if (onJobDeleted) this.deletionListeners.add(onJobDeleted);
    return () => {
      if (onJobDeleted) this.deletionListeners.delete(onJobDeleted);
      unsubscribeJobs();
      unsubscribePool();
      unsubscribeCluster();
      unsubscribeSettings();
      this.loginListeners.delete(changed);
      unsubscribeLog();
      if (timer) clearTimeout(timer);
    };
  }

  private summary(job: JobRow): JobSummary {
    const summary: JobSummary = {
      id: job.id,
      status: job.status,
      provider: job.provider ?? job.req_provider,
      agent_id: job.agent_id,
      agent_name: this.deps.completions.agentName(job),
      attempts: job.attempts,
      prompt_excerpt: job.prompt.slice(0, 200),
      created_at: timestamp(job.created_at),
      took_ms: tookMs(job),
      error: job.error_code ? { code: job.error_code, message: job.error_message ?? '' } : null,
    };
    if (job.finished_at !== null) summary.finished_at = timestamp(job.finished_at);
    return summary;
  }

  private agentControl(): AgentControl {
    if (this.control) return this.control;
    throw new ApiError('NO_DEVICE_ONLINE', 'The agents are not running in this ChatBridge yet (no browser found, or still starting). The log says which.');
  }

  private agentView(id: string): AgentView {
    const { pool, usage } = this.deps;
    const a = pool.get(id)!;
    return {
      id: a.id,
      name: a.name,
      provider: a.provider,
      state: pool.state(a.id),
      detail: pool.liveAgent(a.id)?.detail?.() ?? null,
      enabled: a.enabled,
      position: a.position,
      cap_per_hour: a.cap_per_hour,
      used_this_hour: usage.count({ agentId: a.id }),
      next_slot_at: ts(usage.nextSlotAt({ agentId: a.id }, a.cap_per_hour)),
      cooldown_until: ts(pool.cooldownUntil(a.id)),
      next_check_at: ts(pool.nextCheckAt(a.id)),
      pause_ms: a.pause_ms,
      pause_until: ts(pool.pauseUntil(a.id)),
      proxy: a.proxy === null ? null : maskProxy(a.proxy),
      pairing: this.control?.loginStep(a.id) ?? null,
      created_at: timestamp(a.created_at),
    };
  }

  private async webhookLog(id: string): Promise<WebhookLog | null> {
    try {
      const log = await this.deps.webhooks.log(id);
      return {
        url: log.url,
        state: log.state,
        round: log.round,
        next_attempt_at: ts(log.nextAttemptAt),
        attempts: log.attempts.map((a) => ({
          attempt: a.attempt,
          round: a.round,
          started_at: timestamp(a.started_at),
          duration_ms: a.duration_ms,
          status_code: a.status_code,
          error: a.error,
        })),
      };
    } catch (error) {
      if (error instanceof NoDelivery) return null;
      throw error;
    }
  }
}

function checkedProxy(text: string): string {
  try {
    parseProxy(text);
  } catch (error) {
    if (error instanceof BadProxy) throw invalid('proxy', error.message);
    throw error;
  }
  return text.trim();
}

function bundleView(name: string, m: DiagnosticManifest): DiagnosticBundleView {
  return {
    name,
    attempt: m.attempt,
    agent_id: m.agent_id,
    provider: m.provider,
    at: timestamp(m.at),
    failure: m.failure,
    page_url: m.page_url,
    pack: m.pack,
    cues: m.cues,
    files: m.files,
  };
}

function logEntryView(e: LogEntry): LogEntryView {
  return { seq: e.seq, at: timestamp(e.at), level: e.level, source: e.source, message: e.message };
}

function keyView(k: ApiKey): KeyView {
  return {
    id: k.id,
    name: k.name,
    hint: k.hint,
    scopes: k.scopes,
    created_at: timestamp(k.created_at),
    expires_at: ts(k.expires_at),
    revoked_at: ts(k.revoked_at),
    last_used_at: ts(k.last_used_at),
  };
}
