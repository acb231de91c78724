import { noDefaultPauseIn } from '../core/data-dir.js';
import type { Settings, SettingsStore } from '../settings/settings-store.js';
import { UsageError } from './args.js';
import { commandDataDir } from './command-data-dir.js';
import { databaseUrl, withCommandStorage } from './database.js';

/**
 * Runs `work` on the settings the command's flags name: the shared PostgreSQL with
 * --database (running instances hear the change at once), else the data dir (a running
 * server sees it within a second).
 */
export function withSettings<T>(
  values: { database?: string | undefined; 'data-dir'?: string | undefined },
  work: (settings: SettingsStore) => Promise<T>,
): Promise<T> {
  // A simulation's data dir pauses no time between jobs unless told to (as its server does).
  if (!databaseUrl(values)) noDefaultPauseIn(commandDataDir(values['data-dir']));
  return withCommandStorage(values, (storage) => work(storage.settings));
}

/**
 * Makes `change` (none: only reads) to the settings the flags name, and resolves with them as
 * they are then; a value the store refuses (a RangeError) is the command line's mistake.
 */
export function changeSettings(
  values: { database?: string | undefined; 'data-dir'?: string | undefined },
  change: ((now: Settings, store: SettingsStore) => Promise<void>) | undefined,
): Promise<Settings> {
  return withSettings(values, async (store) => {
    try {
      await change?.(store.get(), store);
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(`${error.message}.`);
      throw error;
    }
    return store.get();
  });
}
