import type { Account, AccountStore } from '../keys/account-store.js';
import { parse, UsageError } from './args.js';
import { DATABASE_OPTION } from './database.js';
import { requireHosted, withKeys } from './shared-keys.js';
import { CLI } from '../core/cli-name.js';
import { MAX_RETENTION_DAYS } from '../contract/enumerations.js';

/** Where the accounts are: the data dir, or the PostgreSQL shared by several instances. */
const WHERE = { 'data-dir': { type: 'string' }, ...DATABASE_OPTION } as const;
const USE = `Use: ${CLI} accounts create --name NAME [--retention-days N|none] | list | set ID --retention-days N|none | disable ID`;

const out = (line: string) => process.stdout.write(`${line}\n`);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * `chatbridge accounts`: the accounts of a hosted (Profile H) data dir, or with --database of
 * the instances sharing that PostgreSQL. A running server sees a change within a second (on
 * the shared database at once): a disabled account's keys get 401 and its queued jobs are
 * cancelled; a new retention period applies at once.
 */
export async function accounts(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const { values } = parse(rest, { ...WHERE, name: { type: 'string' }, 'retention-days': { type: 'string' } });
      if (!values.name?.trim()) throw new UsageError('Give the account a name: --name NAME.');
      const days = values['retention-days'] === undefined ? null : parseRetentionDays(values['retention-days']);
      await withAccounts(values, async (store) => {
        const account = await store.create({ name: values.name!.trim(), retentionDays: days });
        out(`Created account "${account.name}" (retention: ${retention(account)}). Its id, for keys create --account:`);
        out(account.id);
      });
      return;
    }
    case 'list': {
      const { values } = parse(rest, WHERE);
      await withAccounts(values, async (store) => {
        const list = store.list();
        if (list.length === 0) return out(`No accounts yet. Create one: ${CLI} accounts create --name NAME`);
        for (const a of list) {
          out(`${a.id}  ${(a.disabled_at === null ? 'active' : 'disabled').padEnd(8)}  retention ${retention(a)}  "${a.name}"  created ${iso(a.created_at)}`);
        }
      });
      return;
    }
    case 'set': {
      const { values, positionals } = parse(rest, { ...WHERE, 'retention-days': { type: 'string' } }, 1);
      const id = positionals[0];
      if (!id || values['retention-days'] === undefined) throw new UsageError(`Use: ${CLI} accounts set ID --retention-days N|none`);
      const days = parseRetentionDays(values['retention-days']);
      await withAccounts(values, async (store) => {
        if (!(await store.setRetention(id, days))) throw new UsageError(`No account ${id} (see ${CLI} accounts list).`);
        out(`${id} retention: ${retention(store.get(id)!)}.`);
      });
      return;
    }
    case 'disable': {
      const { values, positionals } = parse(rest, WHERE, 1);
      const id = positionals[0];
      if (!id) throw new UsageError(`Which account? ${CLI} accounts disable ID (see ${CLI} accounts list).`);
      await withAccounts(values, async (store) => {
        if (!store.get(id)) throw new UsageError(`No account ${id} (see ${CLI} accounts list).`);
        out(
          (await store.disable(id))
            ? `Disabled ${id}: its keys are refused and its queued jobs are cancelled.`
            : `${id} was already disabled.`,
        );
      });
      return;
    }
    default:
      throw new UsageError(USE);
  }
}

/** Accounts exist in the hosted profile only: a personal install is one account. */
function withAccounts(
  values: { database?: string | undefined; 'data-dir'?: string | undefined },
  work: (store: AccountStore) => Promise<unknown>,
): Promise<void> {
  return withKeys(values, async (stores) => {
    requireHosted(stores);
    await work(stores.accounts);
  });
}

function retention(a: Account): string {
  return a.retention_days === null ? 'none' : `${a.retention_days} days`;
}

export function parseRetentionDays(text: string): number | null {
  if (text === 'none') return null;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_RETENTION_DAYS) {
    throw new UsageError(`--retention-days takes a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or "none", not "${text}".`);
  }
  return Number(text);
}
