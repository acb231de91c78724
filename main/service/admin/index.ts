import type { Clock } from '../../core/clock.js';
import type { DiagnosticBundles } from '../../diagnostics/bundles.js';
import type { AccountStore } from '../../keys/account-store.js';
import type { KeyStore } from '../../keys/key-store.js';
import type { LogBook } from '../../logs/log-book.js';
import type { AgentPool } from '../../queue/agent-pool.js';
import type { ClusterAgents } from '../../queue/cluster-agents.js';
import type { HourlyUsage } from '../../queue/hourly-usage.js';
import type { JobStore } from '../../queue/job-store.js';
import type { Scheduler } from '../../queue/scheduler.js';
import type { SettingsStore } from '../../settings/settings-store.js';
import type { WebhookDeliveries } from '../../webhooks/deliveries.js';
import type { SigningSecret } from '../../webhooks/signing-secret.js';
import type { Profile } from '../../contract/profile.js';
import type { Completions } from '../completions.js';
import type { StatusReport } from '../status-report.js';
import type { UsageReport } from '../usage-report.js';
import { AccountsConsole } from './accounts.js';
import { AgentsConsole } from './agents.js';
import { JobsConsole } from './jobs.js';
import { KeysConsole } from './keys.js';
import { LiveFeed } from './live-feed.js';
import { LogsConsole } from './logs.js';
import { StateConsole } from './state.js';
import { WebhooksConsole } from './webhooks.js';

/**
 * What the dashboard reads and changes, without HTTP, one console per resource: each of
 * its routes (main/api/admin/) takes the one it needs.
 */
export function adminConsoles(deps: {
  version: string;
  dataDir: string;
  store: JobStore;
  pool: AgentPool;
  cluster: ClusterAgents;
  usage: HourlyUsage;
  settings: SettingsStore;
  keys: KeyStore;
  accounts: AccountStore;
  profile: Profile;
  report: StatusReport;
  completions: Completions;
  scheduler: Scheduler;
  webhooks: WebhookDeliveries;
  signingSecret: SigningSecret;
  log: LogBook;
  usageReport: UsageReport;
  diagnostics: DiagnosticBundles;
  clock: Clock;
  /** This device's name on a shared database; null on a data dir of its own. */
  deviceName: () => string | null;
}) {
  const { version, dataDir, store, pool, cluster, usage, settings, keys, accounts, profile, report, completions, scheduler, log, clock } = deps;
  const agents = new AgentsConsole({ pool, usage, store, scheduler, log });
  const state = new StateConsole({ version, dataDir, profile, settings, agents, report });
  const webhooks = new WebhooksConsole({ webhooks: deps.webhooks, signingSecret: deps.signingSecret });
  const jobs = new JobsConsole({ store, completions, diagnostics: deps.diagnostics, webhooks });
  const logs = new LogsConsole(log);
  return {
    state,
    agents,
    keys: new KeysConsole({ keys, accounts, profile, clock, dataDir, deviceName: deps.deviceName }),
    accounts: new AccountsConsole({ accounts, keys, store, clock }),
    jobs,
    webhooks,
    logs,
    usage: deps.usageReport,
    live: new LiveFeed({ state, agents, jobs, logs, events: store.events, pool, cluster, settings }),
  };
}

export type AdminConsoles = ReturnType<typeof adminConsoles>;
