import { hasAccounts } from '../core/profile-name.js';
import type { AccountStore } from '../keys/account-store.js';
import type { KeyStore } from '../keys/key-store.js';
import { UsageError } from './args.js';
import { withCommandStorage } from './database.js';

/** The keys and accounts a command works on, and whether they are a hosted install's. */
export interface KeysAndAccounts {
  keys: KeyStore;
  accounts: AccountStore;
  /** Profile H: keys belong to accounts. */
  hosted: boolean;
  /** "The data dir …" or "The database …", for messages. */
  place: string;
  /** How to start it once in the hosted profile, for messages. */
  serveHosted: string;
}

/**
 * Runs `work` on the keys and accounts the command's flags name: the shared PostgreSQL with
 * --database (running instances hear the change at once), else the data dir (a running
 * server sees it within a second). `readOnly` work refuses a data dir that does not exist
 * rather than create it.
 */
export function withKeys<T>(
  values: { database?: string | undefined; 'data-dir'?: string | undefined },
  work: (stores: KeysAndAccounts) => Promise<T>,
  { readOnly = false } = {},
): Promise<T> {
  return withCommandStorage(
    values,
    async (storage) =>
      work({
        keys: storage.keys,
        accounts: storage.accounts,
        hosted: hasAccounts(await storage.storedProfile()),
        place: storage.place,
        serveHosted: storage.shared ? 'start an instance on it once with serve --profile hosted --database URL' : 'start it once with serve --profile hosted',
      }),
    { readOnly },
  );
}

/** Accounts exist in the hosted profile only: a personal install is one account. */
export function requireHosted({ hosted, place, serveHosted }: KeysAndAccounts): void {
  if (!hosted) throw new UsageError(`${place} is not a hosted one (a personal install is one account): ${serveHosted}.`);
}
