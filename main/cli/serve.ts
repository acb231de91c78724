import { hostname } from 'node:os';
import { RuntimeControl } from '../../agents/runtime/runtime-control.js';
import { startBrowserAgents } from '../../agents/runtime/start-agents.js';
import { DRIFT_KINDS, isDriftKind, type DriftKind } from '../../agents/simulator/client/drift-kinds.js';
import { startSimulatedAgents } from '../../agents/simulator/simulated-agents.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { noDefaultPauseIn, resolveDataDir, simulationDir } from '../core/data-dir.js';
import { isLoopback } from '../core/loopback.js';
import { isProvider, PROVIDERS, type Provider } from '../core/providers.js';
import { adminToken } from '../core/runtime-files.js';
import { noAccountNotice } from '../service/first-run.js';
import { Service } from '../service/service.js';
import { buildServer } from '../api/server.js';
import { parse, parseGrace, parsePort, UsageError } from './args.js';
import { simulationKey } from './simulation-key.js';
import { printsDashboardLink } from './admin-token.js';
import { DEFAULT_STOP_GRACE_MS, stopOnSignals } from './stop-signals.js';
import { DATABASE_OPTION, databaseUrl } from './database.js';
import { isProfileName, PROFILE_NAMES } from '../core/profile-name.js';
import { CLI } from '../core/cli-name.js';

export const SERVE_OPTIONS = {
  profile: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'allow-remote': { type: 'boolean' },
  'allow-private-webhooks': { type: 'boolean' },
  'data-dir': { type: 'string' },
  simulate: { type: 'boolean' },
  'simulate-agents': { type: 'string' },
  'simulate-layout': { type: 'string' },
  'simulate-drift': { type: 'string' },
  ...DATABASE_OPTION,
  'device-name': { type: 'string' },
  'no-api': { type: 'boolean' },
  'fix-grants': { type: 'boolean' },
  'keep-grants': { type: 'boolean' },
  'stop-grace': { type: 'string' },
  'new-key': { type: 'boolean' },
} as const;

/**
 * `chatbridge serve`: the service, headless, until SIGINT, SIGTERM or SIGHUP (stop-signals.ts). With --simulate it
 * runs against the simulated provider sites instead of the real ones, in its own data
 * folder (`<data dir>/simulator`) so simulated agents never mix with real accounts.
 */
export async function serve(args: string[]): Promise<void> {
  const { values } = parse(args, SERVE_OPTIONS);
  const profile = values.profile ?? 'personal';
  if (!isProfileName(profile)) throw new UsageError(`--profile is ${PROFILE_NAMES.join(' or ')}, not "${profile}".`);
  const simulate = ['simulate-agents', 'simulate-layout', 'simulate-drift', 'new-key'].some((k) => values[k as keyof typeof values] !== undefined) || values.simulate === true;
  const counts = simulate ? parseAgentCounts(values['simulate-agents']) : {};
  const looks = { layouts: parseLayouts(values['simulate-layout']), drift: parseDrift(values['simulate-drift']) };
  const baseDir = resolveDataDir(values['data-dir']);
  const dataDir = simulate ? simulationDir(baseDir) : baseDir;
  const database = databaseUrl(values);
  if (!database && (values['device-name'] !== undefined || values['no-api'] || values['fix-grants'] || values['keep-grants'])) {
    throw new UsageError('--device-name, --no-api, --fix-grants and --keep-grants are for a device sharing a database: add --database postgres://… (or set CHATBRIDGE_DATABASE_URL).');
  }
  if (values['fix-grants'] && values['keep-grants']) throw new UsageError('--fix-grants closes the database to other roles, --keep-grants leaves it as it is: give one.');
  const grants = values['fix-grants'] ? 'fix' : values['keep-grants'] ? 'keep' : 'check';
  const api = values['no-api'] !== true;
  const graceMs = values['stop-grace'] === undefined ? DEFAULT_STOP_GRACE_MS : parseGrace(values['stop-grace'], '--stop-grace');
  const host = values.host ?? '127.0.0.1';
  const remote = !isLoopback(host.replace(/^\[|\]$/g, ''));
  if (remote && !values['allow-remote']) {
    throw new UsageError(
      `--host ${host} is not a loopback address: the API would be reachable from the network. Add --allow-remote if that is what you want.`,
    );
  }
  // Whatever this process and its browsers write (profiles, logs, temp files) is the owner's only.
  process.umask(0o077);
  noDefaultPauseIn(dataDir);
  const service = await Service.start({
    dataDir,
    http: buildServer,
    profile,
    allowPrivateWebhooks: values['allow-private-webhooks'] === true,
    host,
    port: parsePort(values.port),
    api,
    ...(database ? { database: { url: database, deviceName: values['device-name'] ?? hostname(), grants } } : {}),
    onWarning: (line) => process.stderr.write(`chatbridge: ${line}\n`),
  });
  // The browsers and simulated sites started below close after the service has stopped.
  const closers: (() => Promise<void>)[] = [];
  stopOnSignals(service, graceMs, closers);
  const siteNotes = (note: { level: 'info' | 'warn'; message: string }) => service.log.add(note.level, 'service', note.message);
  // One write, so a reader that waits for the first line also has the others.
  const token = printsDashboardLink(process.stdout, profile) ? adminToken(dataDir) : null;
  const notice = simulate || !api ? null : noAccountNotice(service.pool, token && `${service.baseUrl}/#/agents/add&token=${token}`);
  const device = database ? `device ${service.deviceName} on the shared database\n` : '';
  const dashboard = token
    ? `${service.baseUrl}/#token=${token}`
    : `${CLI} dashboard${dataDir === resolveDataDir(undefined) ? '' : ` --data-dir ${dataDir}`} prints its link (not written here: it holds the admin token)`;
  const where = api ? `listening on ${service.baseUrl}\ndashboard: ${dashboard}\n` : 'running agents only (--no-api): no HTTP\n';
  process.stdout.write(`${where}${device}${notice ? `${notice}\n` : ''}`);
  if (remote) {
    const warning =
      `--allow-remote: the API listens on ${service.baseUrl} in plain HTTP: keys, the admin token, prompts and answers cross ` +
      'the network unencrypted. Call it by IP address (host names are refused as a DNS-rebinding defence).';
    process.stderr.write(`chatbridge: ${warning}\n`);
    service.log.warn('service', warning);
  }

  if (!simulate) {
    const started = await startBrowserAgents(
      service.pool,
      dataDir,
      (line) => {
        process.stderr.write(`chatbridge: ${line}\n`);
        service.log.warn('service', line);
      },
      siteNotes,
    );
    if (started) {
      closers.push(async () => started.sites.close());
      service.attachAgents(new RuntimeControl(started.runtime));
    }
    return;
  }
  const simulated = await startSimulatedAgents(service.pool, dataDir, counts, looks, siteNotes);
  closers.push(simulated.close);
  service.attachAgents(new RuntimeControl(simulated.runtime));
  const { secret, made } = await simulationKey(service, dataDir, values['new-key'] === true);
  const ready = simulated.runtime.list().filter((a) => a.readiness() === 'idle').length;
  process.stdout.write(
    `simulated providers: ${Object.entries(simulated.simulator.sites).map(([p, s]) => `${p} ${s!.url}`).join(', ')}\n` +
      `simulated agents ready: ${ready} of ${simulated.runtime.list().length}\n` +
      `${pauseLine(service.settings.get().pauseMs)}\n` +
      `simulation data: ${dataDir} (for other commands: --data-dir ${dataDir})\n` +
      `API key (both scopes; ${made ? 'new, kept for the next runs' : 'the same as the last run'}, --new-key replaces it):\n${secret}\n`,
  );
}

/** What the banner says of the pause between an agent's jobs in a simulation. */
function pauseLine(ms: number): string {
  return ms === 0
    ? `pause between jobs: none (simulated sites cannot ban; ${CLI} settings pause --min 10s sets one)`
    : `pause between jobs: at least ${ms / 1000} s, as set (${CLI} settings pause --min 0 lifts it)`;
}

/** "chatgpt=app-shell,deepseek=virtual-list" → the layout of each simulated site named. */
function parseLayouts(spec: string | undefined): Partial<Record<Provider, string>> {
  const layouts: Partial<Record<Provider, string>> = {};
  for (const part of (spec ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [provider, layout = ''] = part.split('=');
    if (!isProvider(provider)) throw new UsageError(`Unknown provider "${provider}" in --simulate-layout; providers are ${PROVIDERS.join(', ')}.`);
    const known = SIM_SITES[provider].layouts;
    if (!known.includes(layout)) throw new UsageError(`--simulate-layout: ${provider} has the layouts ${known.join(', ')}, not "${layout}".`);
    layouts[provider] = layout;
  }
  return layouts;
}

/** "testids,dialog" → the drift kinds every simulated site shows. */
function parseDrift(spec: string | undefined): DriftKind[] {
  const kinds = (spec ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const kind of kinds) {
    if (!isDriftKind(kind)) throw new UsageError(`Unknown drift "${kind}" in --simulate-drift; kinds are ${DRIFT_KINDS.join(', ')}.`);
  }
  return kinds as DriftKind[];
}

/** "chatgpt=2,claude=1" → counts; without a value, one agent per provider. */
function parseAgentCounts(spec: string | undefined): Partial<Record<Provider, number>> {
  if (spec === undefined) return Object.fromEntries(PROVIDERS.map((p) => [p, 1]));
  const counts: Partial<Record<Provider, number>> = {};
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [provider, n = '1'] = part.split('=');
    if (!isProvider(provider)) throw new UsageError(`Unknown provider "${provider}" in --simulate-agents; providers are ${PROVIDERS.join(', ')}.`);
    if (!/^\d+$/.test(n) || Number(n) > 8) throw new UsageError(`--simulate-agents takes provider=N with N from 0 to 8, not "${part}".`);
    counts[provider] = Number(n);
  }
  return counts;
}
