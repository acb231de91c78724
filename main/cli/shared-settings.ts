import { noDefaultPauseIn } from '../core/data-dir.js';
import { commandDataDir } from './command-data-dir.js';
import type { SettingsStore } from '../settings/settings-store.js';
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
