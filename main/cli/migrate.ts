import { connect } from '../storage/postgres/connect.js';
import { closeToOtherRoles } from '../storage/postgres/grants.js';
import { migrate as migrateSchema } from '../storage/postgres/schema.js';
import { parse, UsageError } from './args.js';
import { DATABASE_OPTION, databaseUrl } from './database.js';

/**
 * `chatbridge migrate --database URL [--keep-grants]`: creates or upgrades the PostgreSQL
 * schema that several instances share (serve does the same at start), then shuts the
 * database to other roles unless told to keep its grants. Safe to run while instances are
 * running: it waits for any other migration to finish first.
 */
export async function migrate(args: string[]): Promise<void> {
  const { values } = parse(args, { ...DATABASE_OPTION, 'keep-grants': { type: 'boolean' } });
  const url = databaseUrl(values);
  if (!url) throw new UsageError('Which database? chatbridge migrate --database postgres://USER@HOST:PORT/DB (or CHATBRIDGE_DATABASE_URL).');
  const pool = await connect(url, { max: 1 });
  try {
    const { from, to } = await migrateSchema(pool);
    process.stdout.write(from === to ? `Schema already at version ${to}.\n` : `Schema upgraded from version ${from} to ${to}.\n`);
    if (values['keep-grants']) return;
    const { closed, said } = await closeToOtherRoles(pool);
    (closed ? process.stdout : process.stderr).write(`${said}\n`);
  } finally {
    await pool.end();
  }
}
