/**
 * Settings and accounts changed here, by the command line or by another instance apply at
 * once: the reactions of the queue and of retention to them, named here rather than left in
 * closures inside the assembly. Each returns the function that stops reacting.
 */
import type { AccountStore } from '../keys/account-store.js';
import type { LogBook } from '../logs/log-book.js';
import type { Scheduler } from '../queue/scheduler.js';
import type { SettingsStore } from '../settings/settings-store.js';
import type { Completions } from './completions.js';
import type { Retention, RetentionPeriod } from './retention.js';

/** How long each account's finished jobs keep their text: the service's setting, and (H) each account's own. */
export function retentionPeriods(settings: SettingsStore, accounts: AccountStore): () => RetentionPeriod[] {
  return () => [
    { account: null, days: settings.get().retentionDays },
    ...accounts.list().map((a) => ({ account: a.id, days: a.retention_days })),
  ];
}

/** A resume or a lifted cap dispatches now, a changed period sweeps now (wakes do nothing once stopped). */
export function applySettingChanges(settings: SettingsStore, scheduler: Scheduler, retention: Retention): () => void {
  let retentionDays = settings.get().retentionDays;
  return settings.onChange(() => {
    scheduler.wake();
    if (settings.get().retentionDays !== retentionDays) retention.wake();
    retentionDays = settings.get().retentionDays;
  });
}

/** A disabled account's queued jobs are cancelled, a changed period sweeps now. */
export function applyAccountChanges(accounts: AccountStore, completions: Completions, retention: Retention, log: LogBook): () => void {
  // Each account's retention period, to tell when one changed.
  const periods = () => JSON.stringify(accounts.list().map((a) => [a.id, a.retention_days]));
  let before = periods();
  return accounts.onChange(() => {
    completions.cancelDisabledAccounts().catch((error: Error) =>
      log.warn('service', `The queued jobs of a disabled account could not be cancelled (the next change or start tries again): ${error.message}`),
    );
    const now = periods();
    if (now !== before) retention.wake();
    before = now;
  });
}
