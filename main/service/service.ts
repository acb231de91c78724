import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { AgentControl } from '../core/agent-control.js';
import { secureDataDir } from '../core/data-dir.js';
import { VERSION } from '../core/package-root.js';
import { removeServerInfo, writeServerInfo } from '../core/runtime-files.js';
import type { Profile } from '../contract/profile.js';
import { AdminToken } from '../keys/admin-token.js';
import type { AccountStore } from '../keys/account-store.js';
import type { KeyStore } from '../keys/key-store.js';
import type { LogBook } from '../logs/log-book.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { AgentPool } from '../queue/agent-pool.js';
import { HOUR_MS } from '../queue/hourly-usage.js';
import type { JobEvents } from '../queue/job-events.js';
import type { JobStore } from '../queue/job-store.js';
import { learningFromSiteChecks } from '../queue/variant-offers.js';
import type { Scheduler, StopReport } from '../queue/scheduler.js';
import type { SettingsStore } from '../settings/settings-store.js';
import type { DeviceAgents, ServedStorage } from '../storage/storage.js';
import type { WebhookDeliveries } from '../webhooks/deliveries.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import type { WebhookSender } from '../webhooks/sender.js';
import type { SigningSecret } from '../webhooks/signing-secret.js';
import type { AccountSecrets } from '../webhooks/account-secrets.js';
import type { AdminConsoles } from './admin/index.js';
import { assemble, type Assembly, type AssemblyOptions } from './assembly.js';
import type { Completions } from './completions.js';
import type { HttpLayer } from './http-layer.js';
import { readiness } from './readiness.js';
import { refuseIfServed } from './refuse-if-served.js';
import type { Retention } from './retention.js';

export interface ServiceOptions extends Omit<AssemblyOptions, 'storage'> {
  host?: string;
  port?: number;
  /** Builds the HTTP API from the service's parts: main/api/server.ts's buildServer, given by whoever starts the service. */
  http: HttpLayer;
  /** False: answers no HTTP (`serve --no-api`), only runs its agents on the shared queue. */
  api?: boolean;
}

/**
 * One running ChatBridge service: the parts `assemble` built (main/service/assembly.ts) and
 * the HTTP API over them, started and stopped together. The desktop app, `chatbridge serve`
 * and the tests all start this; it holds the life cycle, not the wiring.
 */
export class Service {
  /** Where jobs, keys, settings and webhooks are kept: the data dir, or a database instances share. */
  readonly storage: ServedStorage;
  readonly dataDir: string;
  readonly profile: Profile;
  readonly store: JobStore;
  readonly pool: AgentPool;
  /** Every device's agents, as the API reports and decides on them (the pool: this device's). */
  readonly cluster: DeviceAgents;
  readonly settings: SettingsStore;
  readonly keys: KeyStore;
  /** (H) The accounts the operator serves; none in Profile F. */
  readonly accounts: AccountStore;
  readonly scheduler: Scheduler;
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
  readonly metrics: ServiceMetrics;
  readonly retention: Retention;
  /** The dashboard's token, which `chatbridge admin-token --rotate` replaces. */
  readonly adminToken: AdminToken;
  readonly app: FastifyInstance;
  private stopWatching: () => void = () => {};
  private pruneTimer: NodeJS.Timeout | undefined;

  private constructor(
    /** Everything the assembly built, for the life cycle below. */
    private readonly parts: Assembly,
    http: HttpLayer,
  ) {
    ({ storage: this.storage, dataDir: this.dataDir, profile: this.profile, store: this.store, pool: this.pool } = parts);
    ({ cluster: this.cluster, settings: this.settings, keys: this.keys, accounts: this.accounts, scheduler: this.scheduler } = parts);
    ({ completions: this.completions, events: this.events, outbox: this.outbox, signingSecret: this.signingSecret } = parts);
    ({ accountSecrets: this.accountSecrets, webhookSender: this.webhookSender, webhooks: this.webhooks, admin: this.admin } = parts);
    ({ log: this.log, metrics: this.metrics, retention: this.retention } = parts);
    this.adminToken = new AdminToken(parts.dataDir);
    this.app = http({
      completions: parts.completions,
      admin: parts.admin,
      report: parts.report,
      accountSecrets: parts.accountSecrets,
      keys: parts.keys,
      adminToken: this.adminToken,
      metrics: parts.metrics,
      profile: parts.profile,
      notReadyBecause: readiness(parts.storage, parts.pool),
      baseUrl: () => parts.served.url,
      clock: parts.clock,
      ids: parts.ids,
      version: VERSION,
      ...(parts.storage.requestLimits ? { limits: parts.storage.requestLimits } : {}),
    });
  }

  /**
   * Opens the data dir, recovers what a crash left behind (jobs that were running go back
   * to the queue with an `agent_lost` attempt; passed deadlines expire), resumes webhook
   * deliveries where their schedule stands, and listens.
   */
  static async start(options: ServiceOptions): Promise<Service> {
    await refuseIfServed(options.dataDir, options.onWarning);
    const privacyWarning = secureDataDir(options.dataDir);
    const parts = await assemble(options);
    const service = new Service(parts, options.http);
    const { store, clock, served } = parts;
    if (privacyWarning) {
      service.log.warn('service', privacyWarning);
      options.onWarning?.(privacyWarning);
    }
    await store.requeueDispatched(clock.now());
    await store.dropFinishedDeltas();
    await parts.usage.follow(store);
    await store.pruneIdempotency(clock.now());
    service.pruneTimer = setInterval(() => void store.pruneIdempotency(clock.now()), HOUR_MS).unref();
    await parts.completions.cancelDisabledAccounts();
    await parts.scheduler.start();
    parts.webhookSender.start();
    parts.retention.start();
    await parts.cluster.start();
    if (options.api !== false) {
      await service.app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
      const address = service.app.server.address();
      if (!address || typeof address === 'string') throw new Error('The server has no TCP address');
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      served.url = `http://${host}:${address.port}`;
      writeServerInfo(options.dataDir, { pid: process.pid, url: served.url });
    }
    served.deviceName = options.database?.deviceName ?? null;
    await parts.storage.join({ name: served.deviceName ?? hostname(), baseUrl: served.url || null }, (error) =>
      service.log.warn('service', `The shared database did not answer a heartbeat or sweep (the next one tries again): ${error.message}`),
    );
    service.stopWatching = parts.storage.watchLocalChanges(() => service.onExternalChange());
    service.log.info('service', `ChatBridge ${VERSION} started on ${served.url}`);
    return service;
  }

  /** The process that runs the agents' browsers hands them to the dashboard. */
  attachAgents(control: AgentControl): void {
    this.parts.useVariants((provider) => control.variants(provider));
    // Submissions are checked, and jobs without a provider routed, by what the attached agents' packs say their sites take.
    this.parts.useAttachmentRules((provider) => control.attachmentRules(provider));
    // Routing learns from each site check which variants each account offers.
    this.admin.agents.attach(learningFromSiteChecks(control, this.scheduler.offers));
    // The agents' own looks at their pages respect a login under way, as Check now does.
    this.pool.lookThrough((id) => control.recheck(id));
  }

  get baseUrl(): string {
    return this.parts.served.url;
  }

  /** This instance's name among the devices sharing a database; null on its own data dir. */
  get deviceName(): string | null {
    return this.parts.served.deviceName;
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
    if (this.baseUrl) removeServerInfo(this.dataDir);
    this.stopWatching();
    clearInterval(this.pruneTimer);
    this.completions.close();
    this.parts.setAsideJobs.stop();
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
    this.parts.stopListening();
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
