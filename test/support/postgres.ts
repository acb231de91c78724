import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import pg from 'pg';
import { randomBase62 } from '../../main/core/ids.js';

/** A PostgreSQL cluster of one test file: made in a temp dir, gone after `stop`. */
export interface PgCluster {
  /** How long initdb plus `pg_ctl start -w` took, in milliseconds. */
  readonly startMs: number;
  /** The superuser's postgres:// URL over 127.0.0.1, without a database. */
  readonly adminUrl: string;
  /**
   * A new database (`t_<random>`), as a postgres:// URL over 127.0.0.1: empty, or a copy of
   * `template` (a database of this cluster nobody is connected to), which is much faster
   * than migrating each one.
   */
  createDatabase(template?: string): Promise<string>;
  stop(): void | Promise<void>;
}

export interface PgClusterOptions {
  /**
   * Commits wait for the WAL on disk, as on a real server (PostgreSQL's defaults): for a
   * benchmark to compare with SQLite's synchronous=FULL. Tests leave it off.
   */
  durable?: boolean;
  /** 60 unless given: a benchmark running several instances, each with a pool of 20, needs more. */
  maxConnections?: number;
}

/**
 * Starts a throwaway cluster: initdb into a temp dir, trust authentication on a unix socket
 * inside that dir and on 127.0.0.1 at a free port, durability off unless asked (nothing here
 * outlives the test file). Run as root, the server runs as the `postgres` user (postgres
 * refuses root), so the temp dir is handed to that user.
 */
export async function startPostgres({ durable = false, maxConnections = 60 }: PgClusterOptions = {}): Promise<PgCluster> {
  const bin = postgresBinDir();
  const root = mkdtempSync(join(tmpdir(), 'chatbridge-pg-'));
  const data = join(root, 'data');
  const as = unprivilegedUser();
  let started = false;
  const stop = (): void => {
    process.off('exit', stop);
    if (started) spawnSync(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-w'], runAs(as));
    started = false;
    rmSync(root, { recursive: true, force: true });
  };
  // A worker that ends without its afterAll (a crash, a timeout) must not leave a server behind.
  process.on('exit', stop);
  try {
    if (as) chownSync(root, as.uid, as.gid);
    const begin = performance.now();
    const port = await freePort();
    run(as, join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '--no-instructions', '-E', 'UTF8', '--locale=C']);
    writeFileSync(
      join(data, 'postgresql.auto.conf'),
      [
        `listen_addresses = '127.0.0.1'`,
        `port = ${port}`,
        `unix_socket_directories = '${root}'`,
        // Tests never need a crash to keep data: unless asked, skip every fsync; keep memory small.
        ...(durable ? [] : ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off']),
        'shared_buffers = 16MB',
        `max_connections = ${maxConnections}`,
        '',
      ].join('\n'),
    );
    if (as) chownSync(join(data, 'postgresql.auto.conf'), as.uid, as.gid);
    run(as, join(bin, 'pg_ctl'), ['start', '-w', '-D', data, '-l', join(root, 'server.log'), '-o', '-c logging_collector=off']);
    started = true;
    const startMs = Math.round(performance.now() - begin);
    const adminUrl = `postgres://postgres@127.0.0.1:${port}`;
    return {
      startMs,
      adminUrl,
      createDatabase: (template) => createDatabase(adminUrl, template),
      stop,
    };
  } catch (error) {
    const log = join(root, 'server.log');
    const tail = existsSync(log) ? `\n${execFileSync('tail', ['-n', '20', log], { encoding: 'utf8' })}` : '';
    stop();
    throw new Error(`Could not start a test PostgreSQL: ${(error as Error).message}${tail}`);
  }
}

/**
 * A new database (`t_<random>`) in the cluster at `adminUrl`, as a postgres:// URL: empty, or
 * a copy of `template`. Closed to other roles, as docs/postgresql.md asks of a database ChatBridge
 * serves on (a copy does not keep its template's grants): a test of what another role can do
 * grants it the right to connect.
 */
export async function createDatabase(adminUrl: string, template?: string): Promise<string> {
  const name = `t_${randomBase62(12).toLowerCase()}`;
  const client = new pg.Client({ connectionString: `${adminUrl}/postgres` });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${client.escapeIdentifier(template)}` : ''}`);
    await client.query(`REVOKE CONNECT, TEMPORARY ON DATABASE ${name} FROM PUBLIC`);
  } finally {
    await client.end();
  }
  return `${adminUrl}/${name}`;
}

/** Whether startPostgres can work here (a benchmark without PostgreSQL says so and skips). */
export function postgresInstalled(): boolean {
  try {
    postgresBinDir();
    return true;
  } catch {
    return false;
  }
}

/** The directory of initdb and pg_ctl: from PATH, else Debian's newest /usr/lib/postgresql/N/bin. */
function postgresBinDir(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const initdb = join(dir, 'initdb');
    if (dir && existsSync(initdb)) return dirname(realpathSync(initdb));
  }
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(debian, v, 'bin', 'initdb'))) return join(debian, v, 'bin');
  throw new Error('PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql); apt-get install postgresql');
}

interface User {
  name: string;
  uid: number;
  gid: number;
}

/** Postgres will not run as root: then the `postgres` user the Debian package creates. */
function unprivilegedUser(): User | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { name: 'postgres', uid: id('-u'), gid: id('-g') };
}

function runAs(as: User | undefined): { uid?: number; gid?: number; stdio: 'pipe' } {
  return as ? { uid: as.uid, gid: as.gid, stdio: 'pipe' } : { stdio: 'pipe' };
}

function run(as: User | undefined, file: string, args: string[]): void {
  const result = spawnSync(file, args, { ...runAs(as), encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${file} ${args[0]} failed (${result.status ?? result.signal}): ${(result.stderr || result.stdout || String(result.error)).trim()}`);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
