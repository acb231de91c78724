import pg from 'pg';
import { LIMITS } from '../../core/limits.js';
import { StorageRefused } from '../refused.js';

/** The database cannot be reached or used: a user-facing condition, told in one line. */
export class PgConnectError extends StorageRefused {}

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
 * How long any statement may run, as LIMITS.databaseLockMs is how long one waits for a lock
 * another session holds: past them the request fails with a clear error in seconds instead
 * of hanging with the pool full. Ours take milliseconds; a migration sets longer ones.
 */
const STATEMENT_TIMEOUT_MS = 30_000;

/**
 * Opens a pool on a `postgres://USER[:PASSWORD]@HOST[:PORT]/DB` URL and checks that it
 * answers, so a wrong URL, a server that is not there or a refused login is said at once,
 * in one line that never shows the URL's credentials.
 */
export async function connect(url: string, { max = 10 }: { max?: number } = {}): Promise<pg.Pool> {
  const { shown, secrets } = checkUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max,
    types,
    connectionTimeoutMillis: 10_000,
    lock_timeout: LIMITS.databaseLockMs,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    // A transaction left open (a process stopped, not killed) would hold its locks, the
    // sweep's among them, for ever: the server ends it. Ours run statements back to back.
    idle_in_transaction_session_timeout: STATEMENT_TIMEOUT_MS,
    // A connection that sits idle for long (the LISTEN one above all) notices a peer gone
    // silently (a NAT or firewall dropping it) in a minute or two, instead of never.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // An idle connection the server drops (restart, network) must not crash the process: the
  // pool discards it and the next query opens another.
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw new PgConnectError(scrub(`Cannot use the database ${shown}: ${why(error)}`, secrets));
  }
  return pool;
}

const URL_SHAPE = '(use postgres://USER@HOST:PORT/DATABASE, the password percent-encoded or in PGPASSWORD).';

/**
 * The URL as it may be shown (user, host, port and database: never a password, never the
 * query, which may hold one as `?password=`), and the secrets it holds, or a PgConnectError
 * saying what is wrong with it without repeating it: a URL that does not parse may hold a
 * password anywhere.
 */
function checkUrl(url: string): { shown: string; secrets: string[] } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PgConnectError(`Not a database URL ${URL_SHAPE}`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new PgConnectError(`Not a PostgreSQL URL: "${parsed.protocol}//…" ${URL_SHAPE}`);
  }
  // A password holding a raw '/', '?' or '#' ends the URL's authority early: what follows
  // (the rest of the password, the '@' and the host) lands in the path, query or fragment.
  if (!parsed.username && url.slice(parsed.protocol.length + 2).includes('@')) {
    throw new PgConnectError(`The database URL's user or password holds a character a URL reserves ('/', '?', '#', '@'): percent-encode it, or give the password in PGPASSWORD ${URL_SHAPE}`);
  }
  // A query parameter that may hold a credential: password, sslpassword, PGPASSWORD-like names.
  const credentials = [...parsed.searchParams].filter(([name]) => /pass|secret|token|key/i.test(name)).flatMap(([, v]) => [v, encodeURIComponent(v)]);
  const secrets = [parsed.password, decode(parsed.password), ...credentials];
  const user = parsed.username ? `${parsed.username}${parsed.password ? ':***' : ''}@` : '';
  return { shown: `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`, secrets: secrets.filter((s) => s.length > 0) };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `text` with every one of `secrets` in it masked: a server's message may quote what it was given. */
function scrub(text: string, secrets: string[]): string {
  return secrets.reduce((out, secret) => out.split(secret).join('***'), text);
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
