import { commandDataDir } from './command-data-dir.js';
import { isProvider, PROVIDERS, type Provider } from '../core/providers.js';
import type { AgentTable } from '../queue/agent-table.js';
import { withAgentTable } from '../storage/storage.js';
import { parse, parseCap, parseDuration, UsageError } from './args.js';
import { DATABASE_OPTION, databaseUrl } from './database.js';
import { withKeys, type KeysAndAccounts } from './shared-keys.js';
import { withSettings } from './shared-settings.js';
import { CLI } from '../core/cli-name.js';
import { SCOPES, type Scope, ROTATIONS, type Rotation } from '../contract/enumerations.js';

const DATA_DIR = { 'data-dir': { type: 'string' } } as const;

/**
 * Runs `work` on the data dir's agents (their rows and caps). A running server sees the
 * change within a second. `readOnly` work refuses a data dir that does not exist rather than create it.
 */
export function withAgents<T>(dataDirFlag: string | undefined, work: (agents: AgentTable) => T, options: { readOnly?: boolean } = {}): T {
  return withAgentTable(commandDataDir(dataDirFlag), work, options);
}

const out = (line: string) => process.stdout.write(`${line}\n`);
const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));

export async function keys(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const { values } = parse(rest, {
        ...DATA_DIR,
        ...DATABASE_OPTION,
        name: { type: 'string' },
        scopes: { type: 'string' },
        'expires-in': { type: 'string' },
        account: { type: 'string' },
      });
      if (!values.name?.trim()) throw new UsageError('Give the key a name: --name NAME.');
      const scopes = (values.scopes ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      if (scopes.length === 0) throw new UsageError(`Give --scopes, a comma-separated list of: ${SCOPES.join(', ')}.`);
      for (const s of scopes) {
        if (!(SCOPES as readonly string[]).includes(s)) throw new UsageError(`Unknown scope "${s}"; scopes are ${SCOPES.join(', ')}.`);
      }
      const ttl = values['expires-in'] === undefined ? null : parseDuration(values['expires-in']);
      await withKeys(values, async (stores) => {
        const accountId = keyAccount(stores, values.account, scopes);
        const { key, secret } = await stores.keys.create({
          name: values.name!.trim(),
          scopes: [...new Set(scopes)] as Scope[],
          expiresAt: ttl === null ? null : Date.now() + ttl,
          accountId,
        });
        out(`Created ${key.id} "${key.name}"${accountId ? ` for ${accountId}` : ''} with ${key.scopes.join(', ')}${key.expires_at ? `, expires ${iso(key.expires_at)}` : ''}.`);
        out('Store the key now: it is not shown again.');
        out(secret);
      });
      return;
    }
    case 'list': {
      const { values } = parse(rest, { ...DATA_DIR, ...DATABASE_OPTION });
      await withKeys(
        values,
        async ({ keys }) => {
          const list = keys.list();
          if (list.length === 0) return out(`No API keys yet. Create one: ${CLI} keys create --name NAME --scopes completions:read,completions:write`);
          for (const k of list) {
            const state = k.revoked_at ? 'revoked' : k.expires_at && k.expires_at <= Date.now() ? 'expired' : 'active';
            out(`${k.id}  ${k.hint}  ${state.padEnd(7)}  ${k.account_id ? `${k.account_id}  ` : ''}${k.scopes.join(',')}  "${k.name}"  created ${iso(k.created_at)}  last used ${iso(k.last_used_at)}`);
          }
        },
        { readOnly: true },
      );
      return;
    }
    case 'revoke': {
      const { values, positionals } = parse(rest, { ...DATA_DIR, ...DATABASE_OPTION }, 1);
      const id = positionals[0];
      if (!id) throw new UsageError(`Which key? ${CLI} keys revoke KEY_ID (see ${CLI} keys list).`);
      await withKeys(values, async ({ keys }) => {
        if (!keys.get(id)) throw new UsageError(`No key ${id}.`);
        out((await keys.revoke(id)) ? `Revoked ${id}.` : `${id} was already revoked.`);
      });
      return;
    }
    default:
      throw new UsageError(`Use: ${CLI} keys create|list|revoke`);
  }
}

/**
 * The account a new key acts for: required in the hosted profile (an existing, active
 * account), except for the operator's metrics key, which acts for none; refused in the
 * personal one, where the install is the one account.
 */
function keyAccount({ hosted, accounts }: KeysAndAccounts, flag: string | undefined, scopes: string[]): string | null {
  if (!hosted) {
    if (flag !== undefined) throw new UsageError('--account is for the hosted profile; a personal install is one account.');
    return null;
  }
  if (flag === undefined && scopes.every((s) => s === 'metrics:read')) return null;
  if (flag === undefined) throw new UsageError(`Say whose key it is: --account ACCT_ID (see ${CLI} accounts list); only the operator's metrics:read key has none.`);
  const account = accounts.get(flag);
  if (!account) throw new UsageError(`No account ${flag} (see ${CLI} accounts list).`);
  if (account.disabled_at !== null) throw new UsageError(`The account ${flag} is disabled.`);
  return account.id;
}

export async function caps(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== 'set') throw new UsageError(`Use: ${CLI} caps set (--global | --provider P | --agent ID) --per-hour N|none`);
  const { values } = parse(rest, {
    ...DATA_DIR,
    ...DATABASE_OPTION,
    global: { type: 'boolean' },
    provider: { type: 'string' },
    agent: { type: 'string' },
    'per-hour': { type: 'string' },
  });
  const targets = [values.global, values.provider, values.agent].filter((t) => t !== undefined).length;
  if (targets !== 1) throw new UsageError('Say which cap: exactly one of --global, --provider P, --agent ID.');
  const cap = parseCap(values['per-hour']);
  const shown = cap === null ? 'no cap' : `${cap} per hour`;
  if (values.provider !== undefined && !isProvider(values.provider)) {
    throw new UsageError(`Unknown provider "${values.provider}"; providers are ${PROVIDERS.join(', ')}.`);
  }
  if (values.agent !== undefined) {
    // An agent's cap lives on its row, which stays in the data dir of the device that runs it.
    if (databaseUrl(values)) throw new UsageError("caps set --agent takes the agent's data dir (--data-dir), not --database.");
    withAgents(values['data-dir'], (table) => {
      if (!table.rows().some((a) => a.id === values.agent)) throw new UsageError(`No agent ${values.agent}.`);
      table.update(values.agent!, { cap_per_hour: cap });
    });
    out(`${values.agent} cap: ${shown}.`);
    return;
  }
  await withSettings(values, async (settings) => {
    if (values.global) await settings.setGlobalCap(cap);
    else await settings.setProviderCap(values.provider as Provider, cap);
  });
  out(values.global ? `Global cap: ${shown}.` : `${values.provider} cap: ${shown}.`);
}

export async function rotation(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values, positionals } = parse(rest, { ...DATA_DIR, ...DATABASE_OPTION }, 1);
  const strategy = positionals[0];
  if (sub !== 'set' || !strategy) throw new UsageError(`Use: ${CLI} rotation set ${ROTATIONS.join('|')}`);
  if (!(ROTATIONS as readonly string[]).includes(strategy)) {
    throw new UsageError(`Unknown strategy "${strategy}"; choose ${ROTATIONS.join(', ')}.`);
  }
  await withSettings(values, (settings) => settings.setRotation(strategy as Rotation));
  out(`Rotation: ${strategy}.`);
}

export async function setPaused(paused: boolean, args: string[]): Promise<void> {
  const { values } = parse(args, { ...DATA_DIR, ...DATABASE_OPTION });
  await withSettings(values, (settings) => settings.setPaused(paused));
  out(paused ? 'Paused: agents take no new jobs (running ones finish).' : 'Resumed: agents take jobs again.');
}
