import { DiagnosticBundles } from '../diagnostics/bundles.js';
import type { Storage } from '../storage/storage.js';
import { parse, UsageError } from './args.js';
import { DATABASE_OPTION, dataDirOf, withCommandStorage } from './database.js';
import { CLI } from '../core/cli-name.js';

const DATA_DIR = { 'data-dir': { type: 'string' }, ...DATABASE_OPTION } as const;
const USE = `Use: ${CLI} jobs delete JOB_ID | jobs purge --before DATE`;
/** Rows per transaction, and the pause after each: a running server's writes get their turn in between. */
const BATCH = 200;
const PAUSE_MS = 20;

const out = (line: string) => process.stdout.write(`${line}\n`);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, PAUSE_MS));

/**
 * "2026-03-01" is local midnight of that day (what a person means by a date); a full ISO
 * timestamp is taken as written ("2026-03-01T12:00:00Z").
 */
export function parseDate(text: string | undefined): number {
  if (text === undefined) throw new UsageError('Give --before DATE, e.g. --before 2026-03-01.');
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const ms = day ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])).getTime() : /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms) || (day && new Date(ms).getDate() !== Number(day[3]))) {
    throw new UsageError(`Not a date: "${text}" (use 2026-03-01, or 2026-03-01T12:00:00Z).`);
  }
  return ms;
}

/**
 * `chatbridge jobs …`: deleting jobs straight in the database (the data dir's, or with
 * --database the PostgreSQL instances share), with or without a running server. A job that
 * is queued or running is never deleted: cancel it first.
 */
export async function jobs(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'delete': {
      const { values, positionals } = parse(rest, DATA_DIR, 1);
      const id = positionals[0];
      if (!id) throw new UsageError(`Which job? ${CLI} jobs delete JOB_ID`);
      const result = await withJobStore(values, ({ jobs }) => jobs.delete(id));
      if (!result) throw new UsageError(`No job ${id}.`);
      if (!result.deleted) throw new UsageError(`Job ${id} is ${result.status}: cancel it first (DELETE /v1/completions/${id}), then delete it.`);
      out(`Deleted ${id}, with its attempts and webhook log.`);
      return;
    }
    case 'purge': {
      const { values } = parse(rest, { ...DATA_DIR, before: { type: 'string' } });
      const before = parseDate(values.before);
      const deleted = await withJobStore(values, async ({ jobs, reclaim }) => {
        let n = 0;
        for (;;) {
          const batch = await jobs.purgeFinishedBefore(before, BATCH);
          n += batch;
          if (batch < BATCH) break;
          await pause();
        }
        // SQLite gives the space back in steps; PostgreSQL's autovacuum does it on its own.
        await reclaim?.(256, pause, () => true);
        return n;
      });
      out(`Deleted ${deleted} finished job${deleted === 1 ? '' : 's'} (finished before ${iso(before)}), with their attempts and webhook logs.`);
      return;
    }
    default:
      throw new UsageError(USE);
  }
}

/**
 * Runs `work` on the job store the flags name. Then the data dir's diagnostic bundles of
 * jobs no longer there go with them (those another machine kept go at its instance's next
 * retention sweep).
 */
function withJobStore<T>(values: { database?: string | undefined; 'data-dir'?: string | undefined }, work: (storage: Storage) => Promise<T>): Promise<T> {
  const bundles = new DiagnosticBundles(dataDirOf(values));
  return withCommandStorage(values, async (storage) => {
    const result = await work(storage);
    await bundles.removeWhere(async (id) => !(await storage.jobs.view(id)));
    return result;
  });
}
