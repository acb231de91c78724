import { hostname } from 'node:os';
import type { VariantCatalog } from '../core/providers.js';
import type { FastifyInstance } from 'fastify';
import { adminConsoles, type AdminConsoles } from './admin/index.js';
import type { AgentControl } from '../core/agent-control.js';
import type { HttpLayer } from './http-layer.js';
import { Completions } from './completions.js';
import { DiagnosticBundles } from '../diagnostics/bundles.js';
import { systemClock, type Clock } from '../core/clock.js';
import { secureDataDir } from '../core/data-dir.js';
import { randomIds, type IdGenerator } from '../core/ids.js';
import { VERSION } from '../core/package-root.js';
import { deviceId, removeServerInfo, writeServerInfo } from '../core/runtime-files.js';
import { SetAsideJobs } from '../queue/set-aside-jobs.js';
import { AdminToken } from '../keys/admin-token.js';
import { ServiceMetrics } from '../metrics/service-metrics.js';
import type { AccountStore } from '../keys/account-store.js';
import type { KeyStore } from '../keys/key-store.js';
import { LogBook } from '../logs/log-book.js';
import { logAgentChanges, logJobEnds, logJobWaits, logWebhookFailures } from '../logs/log-feeds.js';
import { AgentPool } from '../queue/agent-pool.js';
import { HourlyUsage, HOUR_MS } from '../queue/hourly-usage.js';
import { learningFromSiteChecks, VariantOffers } from '../queue/variant-offers.js';
import type { JobEvents } from '../queue/job-events.js';
import { serveStorage, type DeviceAgents, type GrantsPolicy, type ServedStorage } from '../storage/storage.js';
import type { JobStore } from '../queue/job-store.js';
import { DEFAULT_PACING, Retention } from './retention.js';
import { RotationPicker } from '../queue/rotation.js';
import { Scheduler, type StopReport } from '../queue/scheduler.js';
import type { SettingsStore } from '../settings/settings-store.js';
import { StatusReport } from './status-report.js';
import { UsageReport } from './usage-report.js';
import { profileNamed, type Profile } from '../contract/profile.js';
import { WebhookDeliveries } from '../webhooks/deliveries.js';
import { httpsTransport, type AddressPolicy, type WebhookTransport } from '../webhooks/https-transport.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { WebhookSender } from '../webhooks/sender.js';
import type { SigningSecret } from '../webhooks/signing-secret.js';
import type { AccountSecrets } from '../webhooks/account-secrets.js';
import type { ProfileName } from '../core/profile-name.js';
import { refuseIfServed } from './refuse-if-served.js';
import { endDeltasOfFinalJobs } from './delta-ends.js';

export interface ServiceOptions {
  dataDir: string;
  /** personal (Profile F, the default) or hosted (Profile H); a data dir keeps the one it started with. */
  profile?: ProfileName;
  host?: string;
  port?: number;
  clock?: Clock;
  ids?: IdGenerator;
  /**
   * How webhooks reach receivers; tests trust their own certificate through it. A function
   * is given the address policy the profile and `allowPrivateWebhooks` decided.
   */
  webhookTransport?: WebhookTransport | ((policy: AddressPolicy) => WebhookTransport);
  /** (H) Lets webhooks reach private, loopback and link-local receivers (an operator's own network). */
  allowPrivateWebhooks?: boolean;
  /** Where a start-up warning goes besides the service's log (`serve` prints it). */
  onWarning?: (line: string) => void;
  /** Builds the HTTP API from the service's parts: main/api/server.ts's buildServer, given by whoever starts the service. */
  http: HttpLayer;
  /**
   * Shares the queue and the account's state with other instances through this PostgreSQL
   * (`serve --database`), as the device `deviceName`; `grants` says what to do about other
   * roles that can reach it (refuse to start unless given). Without it, all of it is in the data dir.
   */
  database?: { url: string; deviceName: string; grants?: GrantsPolicy };
  /** False: answers no HTTP (`serve --no-api`), only runs its agents on the shared queue. */
  api?: boolean;
  /** The variants a job may ask for until agents are attached, which then tell their packs' (tests of scripted agents set it). */
  variants?: VariantCatalog;
}

/**
 * One running ChatBridge service: the database, the queue and its scheduler, and the HTTP
 * API, wired together. The desktop app, `chatbridge serve` and the tests all start this.
 */
export class Service {
  readonly store: JobStore;
  readonly pool: AgentPool;
  /** Every device's agents, as the API reports and decides on them (the pool: this device's). */
  readonly cluster: DeviceAgents;
  readonly settings: SettingsStore;
  readonly keys: KeyStore;
  /** (H) The accounts the operator serves; none in Profile F. */
  readonly accounts: AccountStore;
  readonly scheduler: Scheduler;
  private readonly setAsideJobs: SetAsideJobs;
  readonly completions: Completions;
  /** The store's job events (long polls, event streams and the dashboard listen there). */
  readonly events: JobEvents;
  readonly outbox: WebhookOutbox;
  readonly signingSecret: SigningSecret;
  /** (H) Each account's own signing secret, for its jobs' deliveries. */
  readonly accountSecrets: AccountSecrets;
  readonly webhookSender: WebhookSender;
  /** Webhook logs and redelivery, for the dashboard. */
  readonly webhooks: WebhookDeliveries;
  /** What the dashboard reads and changes. */
  readonly admin: AdminConsoles;
  /** Recent things a person needs to see, for the dashboard's log view; `serve` adds its warnings. */
  readonly log: LogBook;
  /** The dashboard's token, which `chatbridge admin-token --rotate` replaces. */
  readonly adminToken: AdminToken;
  readonly metrics: ServiceMetrics;
  /** Prunes content past the retention setting, clears old webhook logs, reclaims space. */
  readonly retention: Retention;
  /** Attempt starts in the rolling hour, for the hourly caps. */
  private readonly usage: HourlyUsage;
  readonly app: FastifyInstance;
  /** This instance's name among the devices sharing a database; null on its own data dir. */
  deviceName: string | null = null;
  private url = '';
  /** The variants of each provider's pack: the attached agents' packs, or ServiceOptions.variants. */
  private catalog: VariantCatalog;
  private stopWatching: () => void = () => {};
  private readonly stopLogging: (() => void)[] = [];
  private readonly pruneTimer: NodeJS.Timeout;

  private constructor(
    /** Where jobs, keys, settings and webhooks are kept: the data dir, or a database instances share. */
    readonly storage: ServedStorage,
    readonly dataDir: string,
    readonly profile: Profile,
    clock: Clock,
    ids: IdGenerator,
    webhookTransport: WebhookTransport,
    http: HttpLayer,
    /** How this device is listed among the devices (the host name on a desktop). */
    deviceName: string,
    variants: VariantCatalog = () => [],
  ) {
    this.catalog = variants;
    const variantsNow: VariantCatalog = (provider) => this.catalog(provider);
    this.log = new LogBook(clock);
    this.outbox = storage.outbox;
    this.store = storage.jobs;
    this.events = storage.jobs.events;
    this.settings = storage.settings;
    this.accounts = storage.accounts;
    this.keys = storage.keys;
    this.pool = new AgentPool(storage.agents, clock, ids);
    const baseUrl = () => this.url || null;
    // On a shared database, this device publishes its agents and sees every other device's.
    this.cluster = storage.devices(this.pool, { name: deviceName, baseUrl }, (error) =>
      this.log.warn('service', `The shared database did not take or give the devices' agents (the next try is in 2 s): ${error.message}`),
    );
    const usage = (this.usage = new HourlyUsage(clock));
    this.pruneTimer = setInterval(() => void this.store.pruneIdempotency(clock.now()), HOUR_MS).unref();
    this.scheduler = new Scheduler(
      this.store,
      this.pool,
      usage,
      new RotationPicker(usage, ids),
      () => this.settings.get(),
      clock,
      ids,
      (error) => this.log.warn('service', `A dispatch round failed (the next change to the queue or the agents tries again): ${error.message}`),
      new VariantOffers(),
      variantsNow,
    );
    this.setAsideJobs = new SetAsideJobs(this.store, this.pool, this.cluster, clock, (error) =>
      this.log.warn('service', `Could not end the jobs whose agents are all set aside (the next change tries again): ${error.message}`),
    );
    this.completions = new Completions(
      this.store,
      this.scheduler,
      this.cluster,
      this.settings,
      profile,
      clock,
      ids,
      variantsNow,
    );
    this.signingSecret = storage.signingSecret;
    this.accountSecrets = storage.accountSecrets;
    this.webhookSender = new WebhookSender(
      this.outbox,
      async (account) => (account === null ? this.signingSecret.get() : this.accountSecrets.of(account)),
      async (jobId) => {
        const job = (await this.store.view(jobId))!;
        return { url: job.callback_url!, body: profile.webhookBody(job, this.completions.agentName(job)), account: job.account_id };
      },
      webhookTransport,
      clock,
    );
    this.metrics = new ServiceMetrics({ store: this.store, pool: this.pool, usage, settings: this.settings, clock });
    // The sender's own timer waits for the retries.
    this.webhookSender.wakeOnFinalJobs(this.store);
    this.webhookSender.onAttempt(logWebhookFailures((jobId) => this.outbox.get(jobId), this.log));
    this.webhookSender.onError((error) => this.log.warn('webhook', `Webhooks could not reach the outbox (they are tried again): ${error.message}`));
    this.webhookSender.onAttempt((attempt) => this.metrics.webhookAttempt(attempt));
    this.stopLogging.push(
      logAgentChanges(this.pool, this.log),
      logJobEnds(this.store, this.log),
      logJobWaits(this.store, (job) => this.completions.waitReason(job), this.log, clock),
      endDeltasOfFinalJobs(this.store, this.metrics, this.log),
    );
    this.webhooks = new WebhookDeliveries(this.store, this.outbox, clock, () => this.webhookSender.wake());
    const retentionPeriods = () => [
      { account: null, days: this.settings.get().retentionDays },
      ...this.accounts.list().map((a) => ({ account: a.id, days: a.retention_days })),
    ];
    const diagnostics = new DiagnosticBundles(dataDir);
    this.retention = new Retention(
      this.store,
      this.outbox,
      retentionPeriods,
      clock,
      (error) => this.log.warn('service', `Retention could not finish its sweep (it tries again at the next one): ${error.message}`),
      storage.reclaim,
      DEFAULT_PACING,
      diagnostics,
    );
    let retentionDays = this.settings.get().retentionDays;
    // Settings changed here, by the command line or by another instance apply at once: a
    // resume or a lifted cap dispatches now, a changed period sweeps now (wakes do nothing once stopped).
    this.settings.onChange(() => {
      this.scheduler.wake();
      if (this.settings.get().retentionDays !== retentionDays) this.retention.wake();
      retentionDays = this.settings.get().retentionDays;
    });
    let accountRetention = this.accountRetention();
    // Accounts changed by the command line or by another instance apply at once too: a
    // disabled account's queued jobs are cancelled, a changed period sweeps now.
    this.accounts.onChange(() => {
      this.completions.cancelDisabledAccounts().catch((error: Error) =>
        this.log.warn('service', `The queued jobs of a disabled account could not be cancelled (the next change or start tries again): ${error.message}`),
      );
      const periods = this.accountRetention();
      if (periods !== accountRetention) this.retention.wake();
      accountRetention = periods;
    });
    const report = new StatusReport(this.store, this.cluster, usage, this.settings, profile.timestamp, variantsNow);
    this.admin = adminConsoles({
      version: VERSION,
      dataDir,
      store: this.store,
      pool: this.pool,
      cluster: this.cluster,
      usage,
      settings: this.settings,
      keys: this.keys,
      accounts: this.accounts,
      profile,
      report,
      completions: this.completions,
      scheduler: this.scheduler,
      webhooks: this.webhooks,
      signingSecret: this.signingSecret,
      log: this.log,
      usageReport: new UsageReport(storage.usageHistory, this.cluster, this.keys, clock),
      diagnostics,
      clock,
      deviceName: () => this.deviceName,
    });
    this.adminToken = new AdminToken(dataDir);
    this.app = http({
      completions: this.completions,
      admin: this.admin,
      report,
      accountSecrets: this.accountSecrets,
      keys: this.keys,
      adminToken: this.adminToken,
      metrics: this.metrics,
      profile,
      notReadyBecause: () => this.notReadyBecause(),
      baseUrl: () => this.url,
      clock,
      ids,
      version: VERSION,
      ...(storage.requestLimits ? { limits: storage.requestLimits } : {}),
    });
  }

  /**
   * Opens the data dir, recovers what a crash left behind (jobs that were running go back
   * to the queue with an `agent_lost` attempt; passed deadlines expire), resumes webhook
   * deliveries where their schedule stands, and listens.
   */
  static async start(options: ServiceOptions): Promise<Service> {
    await refuseIfServed(options.dataDir, options.onWarning);
    const clock = options.clock ?? systemClock;
    const privacyWarning = secureDataDir(options.dataDir);
    const profile = options.profile ?? 'personal';
    const storage = await serveStorage({
      dataDir: options.dataDir,
      databaseUrl: options.database?.url,
      grants: options.database?.grants,
      onWarning: options.onWarning,
      deviceId: deviceId(options.dataDir),
      profile,
      clock,
      ids: options.ids ?? randomIds,
      // The service's log does not exist yet; a failed re-read is rare enough to go to stderr.
      onError: (error) => options.onWarning?.(`A shared table could not be read again (the next change tries again): ${error.message}`),
    });
    const policy: AddressPolicy = {
      publicOnly: profileNamed(profile).publicWebhooksOnly && !options.allowPrivateWebhooks,
      denied: () => storage.settings.get().webhookDeny,
    };
    const transport = options.webhookTransport ?? httpsTransport;
    const service = new Service(
      storage,
      options.dataDir,
      profileNamed(profile),
      clock,
      options.ids ?? randomIds,
      typeof transport === 'function' ? transport(policy) : transport,
      options.http,
      options.database?.deviceName ?? hostname(),
      options.variants,
    );
    if (privacyWarning) {
      service.log.warn('service', privacyWarning);
      options.onWarning?.(privacyWarning);
    }
    await service.store.requeueDispatched(clock.now());
    await service.store.dropFinishedDeltas();
    await service.usage.follow(service.store);
    await service.store.pruneIdempotency(clock.now());
    await service.completions.cancelDisabledAccounts();
    await service.scheduler.start();
    service.webhookSender.start();
    service.retention.start();
    await service.cluster.start();
    if (options.api !== false) {
      await service.app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
      const address = service.app.server.address();
      if (!address || typeof address === 'string') throw new Error('The server has no TCP address');
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      service.url = `http://${host}:${address.port}`;
      writeServerInfo(options.dataDir, { pid: process.pid, url: service.url });
    }
    service.deviceName = options.database?.deviceName ?? null;
    await storage.join({ name: service.deviceName ?? hostname(), baseUrl: service.url || null }, (error) =>
      service.log.warn('service', `The shared database did not answer a heartbeat or sweep (the next one tries again): ${error.message}`),
    );
    service.stopWatching = storage.watchLocalChanges(() => service.onExternalChange());
    service.log.info('service', `ChatBridge ${VERSION} started on ${service.url}`);
    return service;
  }

  /** The process that runs the agents' browsers hands them to the dashboard. */
  attachAgents(control: AgentControl): void {
    this.catalog = (provider) => control.variants(provider);
    // Routing learns from each site check which variants each account offers.
    this.admin.agents.attach(learningFromSiteChecks(control, this.scheduler.offers));
    // The agents' own looks at their pages respect a login under way, as Check now does.
    this.pool.lookThrough((id) => control.recheck(id));
  }

  get baseUrl(): string {
    return this.url;
  }

  /**
   * GET /readyz: the database takes a write lock (a read-only, full-locked or closed database
   * fails), and every enabled agent has its browser attached (false while they start).
   */
  private async notReadyBecause(): Promise<'database' | 'agents' | null> {
    if (!(await this.storage.answers())) return 'database';
    const attached = this.pool.list().every((a) => !a.enabled || this.pool.liveAgent(a.id) !== undefined);
    return attached ? null : 'agents';
  }

  /** Each account's retention period, to tell when one changed. */
  private accountRetention(): string {
    return JSON.stringify(this.accounts.list().map((a) => [a.id, a.retention_days]));
  }

  /** The command line changed settings, caps, agents or keys, or asked for a redelivery: pick them up now. */
  private onExternalChange(): void {
    this.settings.invalidate();
    this.keys.invalidate();
    this.accounts.invalidate();
    this.pool.reload();
    this.scheduler.wake();
    this.webhookSender.wake();
  }

  /**
   * Stops taking requests, ends holds (their callers get the job as it stands), gives the
   * running attempts `graceMs` to end, then puts them back in the queue or leaves their answers
   * to collect after a restart (Scheduler.stop), stops sending webhooks (their schedule stays
   * in the outbox) and closes the database. Resolves with what became of the running attempts.
   */
  async stop({ graceMs = 0 }: { graceMs?: number } = {}): Promise<StopReport> {
    this.log.info('service', 'ChatBridge is stopping');
    // The command line finds no server from now on, rather than one that no longer answers.
    if (this.url) removeServerInfo(this.dataDir);
    this.stopWatching();
    clearInterval(this.pruneTimer);
    this.completions.close();
    this.setAsideJobs.stop();
    const report = await this.scheduler.stop(graceMs);
    this.pool.stop();
    const webhooksStopped = this.webhookSender.stop();
    const retentionStopped = this.retention.stop();
    // In-flight requests get a moment to finish; then any connection left is cut.
    const cut = setTimeout(() => this.app.server.closeAllConnections(), 1_000);
    await this.app.close();
    clearTimeout(cut);
    await webhooksStopped;
    await retentionStopped;
    // Closing agents changes their state; that is shutdown, not news.
    for (const stop of this.stopLogging) stop();
    this.metrics.stop();
    // The others keep this device's agents as last published, offline once it has left.
    await this.cluster.close();
    await Promise.allSettled(this.pool.liveAgents().map((a) => a.close()));
    // On a shared database this device leaves: offline for the others at once.
    await this.storage.close();
    return report;
  }

  /** How many attempts are under way: what a stop's grace waits for. */
  get attemptsUnderWay(): number {
    return this.scheduler.attemptsUnderWay;
  }

  /** Cuts a stop's grace short: the attempts still under way are cut now (a second Ctrl-C). */
  endGrace(): void {
    this.scheduler.endGrace();
  }
}
