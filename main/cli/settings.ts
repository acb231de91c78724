import { resolveDataDir } from '../core/data-dir.js';
import { openDatabase } from '../queue/db.js';
import { MAX_RETENTION_DAYS, SettingsStore } from '../settings/settings-store.js';
import { parse, UsageError } from './args.js';

const USE = 'Use: chatbridge settings retention [--days N|none]';

/** `chatbridge settings retention`: shows, or with --days sets, how long prompts and answers are kept. */
export function settings(args: string[]): void {
  const [sub, ...rest] = args;
  if (sub !== 'retention') throw new UsageError(USE);
  const { values } = parse(rest, { 'data-dir': { type: 'string' }, days: { type: 'string' } });
  const days = values.days === undefined ? undefined : parseDays(values.days);
  const db = openDatabase(resolveDataDir(values['data-dir']));
  try {
    const store = new SettingsStore(db);
    if (days !== undefined) store.setRetentionDays(days);
    const kept = store.get().retentionDays;
    process.stdout.write(
      kept === null
        ? 'Retention: none. Prompts and answers are kept until you delete them.\n'
        : `Retention: ${kept} day${kept === 1 ? '' : 's'}. Prompts and answers of jobs that finished longer ago are removed; timings and usage stay.\n`,
    );
  } finally {
    db.close();
  }
}

function parseDays(text: string): number | null {
  if (text === 'none') return null;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_RETENTION_DAYS) {
    throw new UsageError(`--days takes a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or "none", not "${text}".`);
  }
  return Number(text);
}
