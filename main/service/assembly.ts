/**
 * The one place the application's object graph is built: the storage (the data dir or a
 * shared PostgreSQL), the queue over it, webhooks, logs, metrics, retention and the admin
 * consoles. Service (the life cycle), the tests' queue kit and the benches all call
 * `assemble`, so what they run is wired the same way. Nothing here starts: no timer, no
 * listening, no dispatch round until Service.start (or the kit) says so.
 */
import { hostname } from 'node:os';
import { systemClock, type Clock } from '../core/clock.js';
import { deviceId } from '../core/runtime-files.js';
import { randomIds, type IdGenerator } from '../core/ids.js';
import type { ProfileName } from '../core/profile-name.js';
import type { VariantCatalog } from '../core/providers.js';
import type { AttachmentCatalog, AttachmentRules } from '../core/attachments.js';
import { VERSION } from '../core/package-root.js';
import { profileNamed } from '../contract/profile.js';
import { DiagnosticBundles } from '../diagnostics/bundles.js';
import { LogBook } from '../logs/log-book.js';
import { logAgentChanges, logJobEnds, logJobWaits, logWebhookFailures } from '../logs/log-feeds.js';
import { ServiceMetrics } from '../metrics/service-metrics.js';
import { AgentPool } from '../queue/agent-pool.js';
import { HourlyUsage } from '../queue/hourly-usage.js';
import { RotationPicker } from '../queue/rotation.js';
import { Scheduler } from '../queue/scheduler.js';
import { SetAsideJobs } from '../queue/set-aside-jobs.js';
import { VariantOffers } from '../queue/variant-offers.js';
import { serveStorage, type GrantsPolicy, type ServedStorage } from '../storage/storage.js';
import { WebhookDeliveries } from '../webhooks/deliveries.js';
import { httpsTransport, type AddressPolicy, type WebhookTransport } from '../webhooks/https-transport.js';
import { WebhookSender } from '../webhooks/sender.js';
import { adminConsoles } from './admin/index.js';
import { applyAccountChanges, applySettingChanges, retentionPeriods } from './change-reactions.js';
import { Completions } from './completions.js';
import { endDeltasOfFinalJobs } from './delta-ends.js';
import { deliverySecrets, jobWebhooks } from './job-webhooks.js';
import { DEFAULT_PACING, Retention } from './retention.js';
import { StatusReport } from './status-report.js';
import { UsageReport } from './usage-report.js';

export interface AssemblyOptions {
  dataDir: string;
  /** personal (Profile F, the default) or hosted (Profile H); a data dir keeps the one it started with. */
  profile?: ProfileName;
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
  /**
   * Shares the queue and the account's state with other instances through this PostgreSQL
   * (`serve --database`), as the device `deviceName`; `grants` says what to do about other
   * roles that can reach it (refuse to start unless given). Without it, all of it is in the data dir.
   */
  database?: { url: string; deviceName: string; grants?: GrantsPolicy };
  /** The variants a job may ask for until agents are attached, which then tell their packs' (tests of scripted agents set it). */
  variants?: VariantCatalog;
  /** What each provider's site takes as files until agents are attached, which then tell their packs' (without it: any file within the contract's limits). */
  attachmentRules?: AttachmentCatalog;
  /** Storage already open (the tests' queue kit: in memory, or kept across a restart); without it the data dir or `database` is opened. */
  storage?: ServedStorage;
}

export type Assembly = Awaited<ReturnType<typeof assemble>>;

/** Builds the graph on the storage `options` name (opened here unless given). */
export async function assemble(options: AssemblyOptions) {
  const { dataDir } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const profile = profileNamed(options.profile ?? 'personal');
  const storage = options.storage ?? (await openServedStorage(options, clock, ids));
  const policy: AddressPolicy = {
    publicOnly: profile.publicWebhooksOnly && !options.allowPrivateWebhooks,
    denied: () => storage.settings.get().webhookDeny,
  };
  const transport = options.webhookTransport ?? httpsTransport;
  // Where this instance answers once it listens, and its name among the devices sharing a database (null on its own data dir).
  const served: { url: string; deviceName: string | null } = { url: '', deviceName: null };
  // The variants of each provider's pack: ServiceOptions.variants until agents are attached, then their packs'.
  let catalog: VariantCatalog = options.variants ?? (() => []);
  const variants: VariantCatalog = (provider) => catalog(provider);
  // What each provider's site takes as files: ServiceOptions.attachmentRules until agents are attached, then their packs'.
  let rulesInForce: AttachmentCatalog = options.attachmentRules ?? (() => ANY_FILE);
  const attachmentRules: AttachmentCatalog = (provider) => rulesInForce(provider);

  const log = new LogBook(clock);
  const { jobs: store, settings, accounts, keys, outbox, signingSecret, accountSecrets } = storage;
  const pool = new AgentPool(storage.agents, clock, ids);
  // On a shared database, this device publishes its agents and sees every other device's.
  const cluster = storage.devices(pool, { name: options.database?.deviceName ?? hostname(), baseUrl: () => served.url || null }, (error) =>
    log.warn('service', `The shared database did not take or give the devices' agents (the next try is in 2 s): ${error.message}`),
  );
  // Attempt starts in the rolling hour, for the hourly caps.
  const usage = new HourlyUsage(clock);
  const scheduler = new Scheduler(
    store,
    pool,
    usage,
    new RotationPicker(usage, ids),
    () => settings.get(),
    clock,
    ids,
    (error) => log.warn('service', `A dispatch round failed (the next change to the queue or the agents tries again): ${error.message}`),
    new VariantOffers(),
    variants,
    attachmentRules,
  );
  const setAsideJobs = new SetAsideJobs(
    store,
    pool,
    cluster,
    clock,
    (error) => log.warn('service', `Could not end the jobs whose agents are all set aside (the next change tries again): ${error.message}`),
    attachmentRules,
  );
  const completions = new Completions(store, scheduler, cluster, settings, profile, clock, ids, variants, attachmentRules);
  const webhookSender = new WebhookSender(
    outbox,
    deliverySecrets(signingSecret, accountSecrets),
    jobWebhooks(store, profile, completions),
    typeof transport === 'function' ? transport(policy) : transport,
    clock,
  );
  const metrics = new ServiceMetrics({ store, pool, usage, settings, clock });
  webhookSender.onAttempt(logWebhookFailures((jobId) => outbox.get(jobId), log));
  webhookSender.onError((error) => log.warn('webhook', `Webhooks could not reach the outbox (they are tried again): ${error.message}`));
  webhookSender.onAttempt((attempt) => metrics.webhookAttempt(attempt));
  // Webhook logs and redelivery, for the dashboard.
  const webhooks = new WebhookDeliveries(store, outbox, clock, () => webhookSender.wake());
  const diagnostics = new DiagnosticBundles(dataDir);
  // Prunes content past the retention setting, clears old webhook logs, reclaims space.
  const retention = new Retention(
    store,
    outbox,
    retentionPeriods(settings, accounts),
    clock,
    (error) => log.warn('service', `Retention could not finish its sweep (it tries again at the next one): ${error.message}`),
    storage.reclaim,
    DEFAULT_PACING,
    diagnostics,
  );
  const listening = [
    // A final job with a callback is due at once; the sender's own timer waits for the retries.
    webhookSender.wakeOnFinalJobs(store),
    logAgentChanges(pool, log),
    logJobEnds(store, log),
    logJobWaits(store, (job) => completions.waitReason(job), log, clock),
    endDeltasOfFinalJobs(store, metrics, log),
    applySettingChanges(settings, scheduler, retention),
    applyAccountChanges(accounts, completions, retention, log),
  ];
  const report = new StatusReport(store, cluster, usage, settings, profile.timestamp, variants);
  const usageReport = new UsageReport(storage.usageHistory, cluster, keys, clock);
  const admin = adminConsoles({
    version: VERSION, dataDir, store, pool, cluster, usage, settings, keys, accounts, profile, report, completions, scheduler,
    webhooks, signingSecret, log, usageReport, diagnostics, clock, deviceName: () => served.deviceName,
  });
  return {
    storage, dataDir, profile, clock, ids, served, log, attachmentRules, store, events: store.events, settings, accounts, keys, outbox,
    signingSecret, accountSecrets, pool, cluster, usage, scheduler, setAsideJobs, completions, webhookSender, webhooks,
    metrics, retention, report, admin,
    /** The variants the attached agents' packs offer replace the ones the options gave. */
    useVariants(next: VariantCatalog): void {
      catalog = next;
    },
    /** The file rules the attached agents' packs give replace the ones the options gave. */
    useAttachmentRules(next: AttachmentCatalog): void {
      rulesInForce = next;
    },
    /** Stops the logs' feeds and the reactions to changes: closing agents at a stop is shutdown, not news. */
    stopListening(): void {
      for (const stop of listening) stop();
    },
  };
}

/** The rules of a provider no pack has spoken for: the contract's limits alone. */
const ANY_FILE: AttachmentRules = { types: null, maxFileBytes: null, maxFiles: null };

/** The data dir's database, or the shared PostgreSQL `options.database` names. */
function openServedStorage(options: AssemblyOptions, clock: Clock, ids: IdGenerator): Promise<ServedStorage> {
  return serveStorage({
    dataDir: options.dataDir,
    databaseUrl: options.database?.url,
    grants: options.database?.grants,
    onWarning: options.onWarning,
    deviceId: deviceId(options.dataDir),
    profile: options.profile ?? 'personal',
    clock,
    ids,
    // The service's log does not exist yet; a failed re-read is rare enough to go to stderr.
    onError: (error) => options.onWarning?.(`A shared table could not be read again (the next change tries again): ${error.message}`),
  });
}
