import type { AgentView } from '../contract/admin/index.js';
import { resolveDataDir } from '../core/data-dir.js';
import { commandDataDir } from './command-data-dir.js';
import { isProvider, PROVIDER_NAMES, PROVIDERS } from '../core/providers.js';
import { maskProxy } from '../core/proxy.js';
import { proxyOption } from './proxy-option.js';
import type { AgentChange } from '../queue/agent-table.js';
import { withAgents } from './account.js';
import { parse, parsePause, UsageError } from './args.js';
import { localTime } from './local-time.js';
import { notRunning, runningServer, type RunningServer } from './server-client.js';
import type { ErrorEnvelope } from '../contract/schemas.js';
import { CLI } from '../core/cli-name.js';

const DATA_DIR = { 'data-dir': { type: 'string' } } as const;
const USE = `Use: ${CLI} agents list|add|rename|set|pause|enable|remove|check (${CLI} agents --help)`;

const out = (line: string): void => void process.stdout.write(`${line}\n`);

/** An agent as the list shows it; `state` is null when no server runs to know it. */
type Listed = Pick<
  AgentView,
  'id' | 'name' | 'provider' | 'enabled' | 'cap_per_hour' | 'cooldown_until' | 'detail' | 'next_check_at' | 'pause_ms' | 'proxy'
> & { state: string | null };

/**
 * `chatbridge agents …`, the Agents page from the command line, under the same rules (the
 * admin console's). Adding, removing and checking an agent need its browser, so they go
 * through the running server's admin API; renaming, pausing and enabling change the row in
 * the database, which a running server picks up within a second, as `caps` does.
 */
export async function agents(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list': {
      const { values } = parse(rest, { ...DATA_DIR, json: { type: 'boolean' } });
      const list = await listAgents(values['data-dir']);
      if (values.json) return out(JSON.stringify(list, null, 2));
      if (list.length === 0) return out(`No account is paired yet. Add one: ${CLI} agents add PROVIDER (one of ` + PROVIDERS.join(', ') + ').');
      for (const a of list) out(listLine(a));
      return;
    }
    case 'add': {
      const { values, positionals } = parse(rest, { ...DATA_DIR, name: { type: 'string' } }, 1);
      const provider = positionals[0];
      if (!isProvider(provider)) throw new UsageError(`Which provider? ${CLI} agents add PROVIDER, one of ${PROVIDERS.join(', ')}.`);
      const server = await requireServer(resolveDataDir(values['data-dir']), 'adding an account');
      const name = values.name?.trim();
      const agent = await callJson<AgentView>(server, 'POST', '/admin/v1/agents', { provider, ...(name ? { name } : {}) });
      out(`Added ${agent.id} "${agent.name}" (${PROVIDER_NAMES[provider]}).`);
      if (agent.state === 'idle') return out('Its browser is already logged in: it takes jobs now.');
      out(`Log in to ${PROVIDER_NAMES[provider]} in its page, shown in the dashboard (the desktop app opens a window):`);
      out(server.dashboardLink(`/agents/${agent.id}/login`));
      out(`It takes jobs once you are in; ${CLI} agents check ${agent.id} tells where it stands.`);
      return;
    }
    case 'rename': {
      const { values, positionals } = parse(rest, DATA_DIR, 2);
      const [id, name] = positionals.map((p) => p.trim());
      if (!id || !name) throw new UsageError(`Use: ${CLI} agents rename ID NAME`);
      if (name.length > 80) throw new UsageError('A name has at most 80 characters.');
      changeRow(values['data-dir'], id, { name });
      return out(`${id} is now "${name}".`);
    }
    case 'set': {
      const { values, positionals } = parse(rest, { ...DATA_DIR, pause: { type: 'string' }, proxy: { type: 'string' }, 'proxy-password-file': { type: 'string' } }, 1);
      const id = positionals[0];
      if (!id || (values.pause === undefined && values.proxy === undefined)) {
        throw new UsageError(`Use: ${CLI} agents set ID [--pause 20s|default] [--proxy URL|none [--proxy-password-file FILE]]`);
      }
      if (values['proxy-password-file'] !== undefined && (values.proxy === undefined || values.proxy === 'none')) {
        throw new UsageError('--proxy-password-file goes with --proxy USER@HOST:PORT.');
      }
      const pause = values.pause === undefined ? undefined : values.pause === 'default' ? null : parsePause(values.pause, '--pause');
      const proxy = values.proxy === undefined ? undefined : values.proxy === 'none' ? null : proxyOption(values.proxy, values['proxy-password-file'], process.env);
      changeRow(values['data-dir'], id, { pause_ms: pause, proxy });
      if (pause !== undefined) out(pause === null ? `${id} pauses between jobs as the settings say (${CLI} settings pause).` : `${id} pauses at least ${pause / 1000} s between jobs.`);
      if (proxy !== undefined) out(`${id} ${proxy === null ? 'connects directly' : `goes through ${maskProxy(proxy)}`}; a running server restarts its browser.`);
      return;
    }
    case 'pause':
    case 'enable': {
      const { values, positionals } = parse(rest, DATA_DIR, 1);
      const id = positionals[0];
      if (!id) throw new UsageError(`Which agent? ${CLI} agents ${sub} ID (see ${CLI} agents list).`);
      changeRow(values['data-dir'], id, { enabled: sub === 'enable' });
      return out(sub === 'enable' ? `${id} takes jobs again.` : `${id} is paused: it takes no new jobs (a running one finishes).`);
    }
    case 'remove': {
      const { values, positionals } = parse(rest, DATA_DIR, 1);
      const id = positionals[0];
      if (!id) throw new UsageError(`Which agent? ${CLI} agents remove ID (see ${CLI} agents list).`);
      const server = await requireServer(resolveDataDir(values['data-dir']), 'removing an agent (its browser and login go with it)');
      await callJson(server, 'DELETE', `/admin/v1/agents/${encodeURIComponent(id)}`);
      return out(`Removed ${id} and its login. Its past jobs keep its id.`);
    }
    case 'check': {
      const { values, positionals } = parse(rest, DATA_DIR, 1);
      const id = positionals[0];
      if (!id) throw new UsageError(`Which agent? ${CLI} agents check ID (see ${CLI} agents list).`);
      const server = await requireServer(resolveDataDir(values['data-dir']), "checking an agent's page");
      const agent = await callJson<AgentView>(server, 'POST', `/admin/v1/agents/${encodeURIComponent(id)}/check`);
      out(listLine({ ...agent, state: agent.pairing ? 'logging_in' : agent.state }));
      if (agent.state === 'needs_login' || agent.pairing) out(`Log in: ${server.dashboardLink(`/agents/${agent.id}/login`)}`);
      return;
    }
    default:
      throw new UsageError(USE);
  }
}

/** From the running server (live states), else from the database (no states). */
async function listAgents(dataDirFlag: string | undefined): Promise<Listed[]> {
  const server = await runningServer(commandDataDir(dataDirFlag));
  if (server) {
    const { agents: views } = await callJson<{ agents: AgentView[] }>(server, 'GET', '/admin/v1/state');
    return views.map((a) => ({ ...pick(a), state: a.pairing ? 'logging_in' : a.state }));
  }
  return withAgents(
    dataDirFlag,
    (table) =>
      table
        .rows()
        .map((r) => ({ ...pick({ ...r, cooldown_until: null, detail: null, next_check_at: null, proxy: r.proxy === null ? null : maskProxy(r.proxy) }), state: null })),
    { readOnly: true },
  );
}

function pick(a: Omit<Listed, 'state'>): Omit<Listed, 'state'> {
  const { id, name, provider, enabled, cap_per_hour, cooldown_until, detail, next_check_at, pause_ms, proxy } = a;
  return { id, name, provider, enabled, cap_per_hour, cooldown_until, detail, next_check_at, pause_ms, proxy };
}

function listLine(a: Listed, now = Date.now()): string {
  const state = a.state ?? (a.enabled ? 'not running' : 'paused');
  const extra = [
    a.state === 'resting' && a.cooldown_until ? `limit until ${localTime(a.cooldown_until, now)}` : '',
    (a.state === 'needs_login' || a.state === 'error') && a.detail ? `(${a.detail})` : '',
    a.next_check_at ? `looks again at ${localTime(a.next_check_at, now)}` : '',
    a.cap_per_hour !== null ? `cap ${a.cap_per_hour}/hour` : '',
    a.pause_ms !== null ? `pause ${a.pause_ms / 1000} s` : '',
    a.proxy !== null ? `proxy ${a.proxy}` : '',
  ].filter(Boolean);
  return [`${a.id}  ${a.provider.padEnd(10)} ${state.padEnd(12)} "${a.name}"`, ...extra].join('  ');
}

/** The running server, or a one-line error that says how to start it. */
async function requireServer(dataDir: string, forWhat: string): Promise<RunningServer> {
  const server = await runningServer(dataDir);
  if (!server) throw notRunning(dataDir, `${forWhat} needs it. Start it (${CLI} serve), then try again.`);
  return server;
}

/** Calls the server's admin API; its refusals come back as a UsageError with the server's own words. */
async function callJson<T = unknown>(server: RunningServer, method: string, path: string, body?: unknown): Promise<T> {
  const res = await server.call(method, path, body);
  if (res.status === 204) return undefined as T;
  const answer = (await res.json().catch(() => null)) as (T & Partial<ErrorEnvelope>) | null;
  if (!res.ok) throw new UsageError(answer?.error?.message ?? `ChatBridge answered HTTP ${res.status}.`);
  return answer as T;
}

/** Changes an agent's row; a running server picks the change up within a second. */
function changeRow(dataDirFlag: string | undefined, id: string, change: AgentChange): void {
  withAgents(dataDirFlag, (table) => {
    if (!table.rows().some((a) => a.id === id)) throw new UsageError(`No agent ${id} (see ${CLI} agents list).`);
    table.update(id, change);
  });
}
