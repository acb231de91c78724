import type { AdminState, SiteCheckView } from '../contract/admin/index.js';
import { resolveDataDir } from '../core/data-dir.js';
import { VERSION } from '../core/package-root.js';
import { isProvider, PROVIDERS } from '../core/providers.js';
import { parse, UsageError } from './args.js';
import { notRunning, runningServer, type RunningServer } from './server-client.js';
import { CLI } from '../core/cli-name.js';

/** A check with a probe prompt waits for an answer: give the server time. */
const CHECK_MS = { plain: 90_000, send: 240_000 };

/**
 * `chatbridge sites check [--provider P] [--send] [--json]`: asks the running server to
 * check the page of each logged-in agent (of P) role by role, and prints per agent which
 * cue found each role or that none did. Exit code 1 when a role is missing or a check could
 * not go through: what a person pastes into a bug report after a site update.
 */
export async function sites(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'check') throw new UsageError(`Usage: ${CLI} sites check [--provider P] [--send] [--json]`);
  const { values } = parse(rest, {
    'data-dir': { type: 'string' },
    provider: { type: 'string' },
    send: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const provider = values.provider;
  if (provider !== undefined && !isProvider(provider)) throw new UsageError(`Unknown provider "${provider}"; providers are ${PROVIDERS.join(', ')}.`);
  const dataDir = resolveDataDir(values['data-dir']);
  const server = await runningServer(dataDir);
  if (!server) throw notRunning(dataDir, `Start it (${CLI} serve): the check runs in its browsers.`);

  const state = await callJson<AdminState>(server, 'GET', '/admin/v1/state');
  const agents = state.agents.filter((a) => !provider || a.provider === provider);
  const loggedIn = agents.filter((a) => a.state !== 'needs_login');
  if (loggedIn.length === 0) {
    const which = provider ? `${provider} ` : '';
    throw new UsageError(
      agents.length === 0 ? `No ${which}agent to check: add an account in the dashboard first.` : `No logged-in ${which}agent to check: log in from the dashboard first.`,
    );
  }
  const send = values.send === true;
  const results: (SiteCheckView | { agent_id: string; name: string; error: string })[] = [];
  const out: string[] = [header(state.version, send)];
  for (const agent of agents) {
    if (agent.state === 'needs_login') {
      out.push('', `${agent.name} (${agent.provider}, ${agent.id}): not checked, it needs a login.`);
      continue;
    }
    const res = await server.call('POST', `/admin/v1/agents/${encodeURIComponent(agent.id)}/check-site`, { send }, send ? CHECK_MS.send : CHECK_MS.plain);
    const body = (await res.json().catch(() => ({}))) as SiteCheckView & { error?: { message?: string } };
    if (!res.ok) {
      const error = body.error?.message ?? `HTTP ${res.status}`;
      results.push({ agent_id: agent.id, name: agent.name, error });
      out.push('', `${agent.name} (${agent.provider}, ${agent.id}): not checked: ${error}`);
      continue;
    }
    results.push(body);
    out.push('', renderCheck(agent.name, body));
  }
  process.stdout.write(values.json ? `${JSON.stringify(results, null, 2)}\n` : `${out.join('\n')}\n`);
  return results.every((r) => 'ok' in r && r.ok) ? 0 : 1;
}

function header(version: string, send: boolean): string {
  const day = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return `chatbridge ${version} (cli ${VERSION}) · sites check${send ? ' --send' : ''} · ${day} · node ${process.version} ${process.platform}-${process.arch}`;
}

const STATUS_WORDS = { missing: 'MISSING', not_shown: 'not shown now (normal)', needs_send: 'needs --send' } as const;

export function renderCheck(name: string, c: SiteCheckView): string {
  const override = c.pack.override ? `override ${c.pack.override}` : 'built-in pack';
  const lines = [
    `${name} (${c.site}, ${c.agent_id}) at ${c.at}`,
    `  pack ${c.provider} v${c.pack.version}, checked ${c.pack.checked}; ${override}${c.pack.override_error ? `; an override was REFUSED: ${c.pack.override_error}` : ''}`,
    `  page ${c.page_url ?? '(none)'}${c.sent ? ', probe prompt sent' : ''}`,
  ];
  if (c.problem) lines.push(`  PROBLEM: ${c.problem}`);
  const width = Math.max(...c.roles.map((r) => r.role.length)) + 2;
  for (const r of c.roles) {
    const result = r.cue ? `#${r.cue.index + 1} ${r.cue.kind}: ${r.cue.css}` : STATUS_WORDS[r.status as keyof typeof STATUS_WORDS];
    lines.push(`  ${r.role.padEnd(width)}${result}`);
  }
  lines.push(`  variants offered: ${c.variants === null ? '(not known: the page could not be looked at, or its model picker did not open)' : c.variants.length > 0 ? c.variants.join(', ') : 'none of the pack\'s'}`);
  const missing = c.roles.filter((r) => r.status === 'missing').map((r) => r.role);
  lines.push(c.ok ? '  => every role found' : `  => ${missing.length ? `missing: ${missing.join(', ')}` : 'the check did not go through'}`);
  return lines.join('\n');
}

async function callJson<T>(server: RunningServer, method: string, path: string): Promise<T> {
  const res = await server.call(method, path);
  if (!res.ok) throw new UsageError(`ChatBridge at ${server.url} answered HTTP ${res.status} to ${path}.`);
  return (await res.json()) as T;
}
