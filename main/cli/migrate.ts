import { upgradeDatabase } from '../storage/storage.js';
import { parse, UsageError } from './args.js';
import { DATABASE_OPTION, databaseUrl } from './database.js';
import { CLI } from '../core/cli-name.js';

/**
 * `chatbridge migrate --database URL [--keep-grants]`: creates or upgrades the PostgreSQL
 * schema that several instances share (serve does the same at start), then shuts the
 * database to other roles unless told to keep its grants. Safe to run while instances are
 * running: it waits for any other migration to finish first.
 */
export async function migrate(args: string[]): Promise<void> {
  const { values } = parse(args, { ...DATABASE_OPTION, 'keep-grants': { type: 'boolean' } });
  const url = databaseUrl(values);
  if (!url) throw new UsageError(`Which database? ${CLI} migrate --database postgres://USER@HOST:PORT/DB (or CHATBRIDGE_DATABASE_URL).`);
  const { from, to, grants } = await upgradeDatabase(url, { keepGrants: values['keep-grants'] === true });
  process.stdout.write(from === to ? `Schema already at version ${to}.\n` : `Schema upgraded from version ${from} to ${to}.\n`);
  if (grants) (grants.closed ? process.stdout : process.stderr).write(`${grants.said}\n`);
}
