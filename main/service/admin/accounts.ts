import type { AccountView } from '../../contract/admin/accounts.js';
import type { Clock } from '../../core/clock.js';
import type { AccountStore } from '../../keys/account-store.js';
import type { KeyStore } from '../../keys/key-store.js';
import { HOUR_MS } from '../../queue/hourly-usage.js';
import type { JobStore } from '../../queue/job-store.js';
import { DAY_MS } from '../../core/timestamps.js';
import { keyView } from './keys.js';

/** (hosted) The accounts the operator serves, as the dashboard lists them. */
export class AccountsConsole {
  constructor(
    private readonly deps: {
      accounts: AccountStore;
      keys: KeyStore;
      store: JobStore;
      clock: Clock;
    },
  ) {}

  /**
   * Each account with its queue depth, attempts started this hour (rolling, as the caps
   * count) and today (since 00:00 UTC), its keys and its retention.
   */
  async list(): Promise<AccountView[]> {
    const { accounts, keys, store, clock } = this.deps;
    const now = clock.now();
    const starts = await store.startsByAccount(now - (now % DAY_MS), now - HOUR_MS);
    const allKeys = keys.list();
    const list = accounts.list();
    const depths = await Promise.all(list.map((a) => store.queuedCount(a.id)));
    return list.map((a, i) => ({
      id: a.id,
      name: a.name,
      retention_days: a.retention_days,
      disabled: a.disabled_at !== null,
      queue_depth: depths[i]!,
      used_this_hour: starts.get(a.id)?.hour ?? 0,
      used_today: starts.get(a.id)?.today ?? 0,
      keys: allKeys.filter((k) => k.account_id === a.id).map(keyView),
    }));
  }
}
