import type { KeyCreate, KeyView } from '../../contract/admin/keys.js';
import type { Clock } from '../../core/clock.js';
import { ApiError, invalid } from '../../core/errors.js';
import { DAY_MS, timestamp, timestampOrNull as ts } from '../../core/timestamps.js';
import type { AccountStore } from '../../keys/account-store.js';
import { join } from 'node:path';
import { KeptKey } from '../../keys/kept-key.js';
import type { ApiKey, KeyStore } from '../../keys/key-store.js';

/** Where the data folder keeps the command line's key, beside the admin token. */
const COMMAND_LINE_KEY_FILE = 'command-line-key';

/**
 * The dashboard's API keys: listed, created (the secret shown once) and revoked; and the
 * command line's own key, which `chatbridge ask` sends its jobs with (so that Usage names
 * them as the command line's, and a leak of it is a key's, never the admin token's): the
 * operator's (no account), both completions scopes, kept in the data folder (KeptKey), one
 * per device on a shared database.
 */
export class KeysConsole {
  private readonly commandLineKey: KeptKey;

  constructor(
    private readonly deps: {
      keys: KeyStore;
      accounts: AccountStore;
      /** (H) Keys belong to accounts; (F) the install is one account. */
      profile: { accounts: boolean };
      clock: Clock;
      dataDir: string;
      /** This device's name on a shared database; null on a data dir of its own. */
      deviceName: () => string | null;
    },
  ) {
    this.commandLineKey = new KeptKey(deps.keys, join(deps.dataDir, COMMAND_LINE_KEY_FILE), () => {
      const device = deps.deviceName();
      return { name: device ? `command line (${device})` : 'command line', scopes: ['completions:read', 'completions:write'], accountId: null };
    });
  }

  list(): KeyView[] {
    return this.deps.keys.list().map(keyView);
  }

  async create(input: KeyCreate): Promise<{ key: KeyView; secret: string }> {
    const name = input.name.trim();
    if (!name) throw invalid('name', 'Give the key a name.');
    const expiresAt = input.expires_in_days ? this.deps.clock.now() + input.expires_in_days * DAY_MS : null;
    const { key, secret } = await this.deps.keys.create({ name, scopes: input.scopes, expiresAt, accountId: this.keyAccount(input.account_id) });
    return { key: keyView(key), secret };
  }

  async revoke(id: string): Promise<KeyView> {
    const { keys } = this.deps;
    if (!keys.get(id)) throw new ApiError('NOT_FOUND', `No key ${id}.`);
    await keys.revoke(id);
    return keyView(keys.get(id)!);
  }

  async commandLine(): Promise<{ key: KeyView; secret: string }> {
    const { key, secret } = await this.commandLineKey.get();
    return { key: keyView(key), secret };
  }

  /** The account a new key acts for: required in the hosted profile, refused in the personal one (one account). */
  private keyAccount(id: string | undefined): string | null {
    if (!this.deps.profile.accounts) {
      if (id !== undefined) throw invalid('account_id', 'This install is one account: keys take no account_id.');
      return null;
    }
    const account = id === undefined ? undefined : this.deps.accounts.get(id);
    if (!account) throw invalid('account_id', 'Say which account the key is for (account_id).');
    if (account.disabled_at !== null) throw invalid('account_id', `The account ${id} is disabled.`);
    return account.id;
  }
}

export function keyView(k: ApiKey): KeyView {
  return {
    id: k.id,
    name: k.name,
    hint: k.hint,
    scopes: k.scopes,
    created_at: timestamp(k.created_at),
    expires_at: ts(k.expires_at),
    revoked_at: ts(k.revoked_at),
    last_used_at: ts(k.last_used_at),
  };
}
