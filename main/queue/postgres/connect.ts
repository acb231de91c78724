import pg from 'pg';

/** The database cannot be reached or used: a user-facing condition, told in one line. */
export class PgConnectError extends Error {}

const INT8 = 20;

/**
 * Epoch milliseconds and counts are BIGINT; node-postgres hands those over as strings, since
 * not every int8 fits a double. Ours do (ms until the year 285 616), so they come as numbers.
 * Set on this pool only, never on pg's global parsers.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 && format !== 'binary' ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * Opens a pool on a `postgres://USER[:PASSWORD]@HOST[:PORT]/DB` URL and checks that it
 * answers, so a wrong URL, a server that is not there or a refused login is said at once,
 * in one line that never shows the password.
 */
export async function connect(url: string, { max = 10 }: { max?: number } = {}): Promise<pg.Pool> {
  const shown = checkUrl(url);
  const pool = new pg.Pool({ connectionString: url, max, types, connectionTimeoutMillis: 10_000 });
  // An idle connection the server drops (restart, network) must not crash the process: the
  // pool discards it and the next query opens another.
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw new PgConnectError(`Cannot use the database ${shown}: ${why(error)}`);
  }
  return pool;
}

/** The URL with its password hidden, or a PgConnectError saying what is wrong with it. */
function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PgConnectError(`Not a database URL: "${url}" (use postgres://USER@HOST:PORT/DATABASE).`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new PgConnectError(`Not a PostgreSQL URL: "${parsed.protocol}//…" (use postgres://USER@HOST:PORT/DATABASE).`);
  }
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

function why(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { code?: string };
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'connection refused (is PostgreSQL running, on that host and port?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case '28P01':
    case '28000':
      return `login refused (${e.message})`;
    case '3D000':
      return `${e.message} (create it first, e.g. createdb)`;
    default:
      return e.message.split('\n')[0] || String(e.code ?? error);
  }
}
