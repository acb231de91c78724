/**
 * The PostgreSQL schema: `migrate` under its advisory lock, the one-line errors of connect,
 * and `chatbridge migrate` (through the built CLI: needs dist/).
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, PgConnectError } from '../../main/storage/postgres/connect.js';
import { migrate, SCHEMA_VERSION } from '../../main/storage/postgres/schema.js';
import { CLI } from '../support/processes.js';
import { startPostgres, type PgCluster } from '../support/postgres.js';

let cluster: PgCluster;
const pools: pg.Pool[] = [];
const open = async (url: string) => {
  const pool = await connect(url);
  pools.push(pool);
  return pool;
};

beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  cluster?.stop();
});

describe('migrate', () => {
  it('creates the schema from nothing, then finds it done', async () => {
    const pool = await open(await cluster.createDatabase());
    expect(await migrate(pool)).toEqual({ from: 0, to: SCHEMA_VERSION });
    expect(await migrate(pool)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    const tables = await pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['attempts', 'conversations', 'devices', 'idempotency', 'jobs', 'webhook_deliveries']),
    );
  });

  it('lets instances starting together take turns: one migrates, the others find it done', async () => {
    const url = await cluster.createDatabase();
    const results = await Promise.all([open(url), open(url), open(url)].map(async (p) => migrate(await p)));
    expect(results.filter((r) => r.from === 0)).toHaveLength(1);
    expect(results.every((r) => r.to === SCHEMA_VERSION)).toBe(true);
  });

  it('refuses a database written by a newer ChatBridge', async () => {
    const pool = await open(await cluster.createDatabase());
    await migrate(pool);
    await pool.query('UPDATE chatbridge_schema SET version = version + 1');
    await expect(migrate(pool)).rejects.toThrow(new PgConnectError(`The database was written by a newer ChatBridge (schema ${SCHEMA_VERSION + 1}, this one knows ${SCHEMA_VERSION}).`));
  });
});

describe('connect says in one line why a database cannot be used', () => {
  const refusal = (url: string) => connect(url).then(() => { throw new Error('connected'); }, (e: Error) => e);

  it('a URL that is not one, or not postgres', async () => {
    expect(await refusal('localhost:5432/db')).toBeInstanceOf(PgConnectError);
    expect((await refusal('not a url')).message).toBe('Not a database URL (use postgres://USER@HOST:PORT/DATABASE, the password percent-encoded or in PGPASSWORD).');
    expect((await refusal('mysql://u@h/db')).message).toMatch(/^Not a PostgreSQL URL: "mysql:/);
  });

  it('a refused connection, without the password', async () => {
    const port = await closedPort();
    const error = await refusal(`postgres://me:s3cret@127.0.0.1:${port}/db`);
    expect(error).toBeInstanceOf(PgConnectError);
    expect(error.message).toBe(`Cannot use the database postgres://me:***@127.0.0.1:${port}/db: connection refused (is PostgreSQL running, on that host and port?)`);
  });

  it('never the secret, whatever form the credentials take', async () => {
    const port = await closedPort();
    const at = `127.0.0.1:${port}/db`;
    const forms: [string, string][] = [
      [`postgres://me:Zq8SECRET1@${at}`, 'Zq8SECRET1'],
      [`postgres://me:Zq8%2FSECRET2@${at}`, 'SECRET2'],
      [`postgres://me:Zq8/SECRET3@${at}`, 'SECRET3'],
      [`postgres://me:Zq8?SECRET4@${at}`, 'SECRET4'],
      [`postgres://me:Zq8#SECRET5@${at}`, 'SECRET5'],
      [`postgres://me:4242?SECRET6@${at}`, '4242'],
      [`postgres://me@${at}?password=Zq8SECRET7`, 'Zq8SECRET7'],
      [`postgres://me@${at}?sslmode=disable&sslpassword=Zq8SECRET8`, 'Zq8SECRET8'],
      [`postgresql://me@${at}?PASSWORD=Zq8SECRET9#frag`, 'Zq8SECRET9'],
      [`host=127.0.0.1 port=${port} password=Zq8SECRET10`, 'Zq8SECRET10'],
    ];
    for (const [url, secret] of forms) {
      const { message } = await refusal(url);
      expect(message, url).not.toContain(secret);
      expect(message, url).not.toContain('Zq8');
      expect(message, url).toMatch(/^(Cannot use the database postgres(ql)?:\/\/me(:\*\*\*)?@127\.0\.0\.1:\d+\/db: connection refused|Not a database URL|The database URL's user or password holds)/);
    }
  });

  it('a refused login and a missing database', async () => {
    const url = new URL(await cluster.createDatabase());
    url.username = 'nobody_here';
    expect((await refusal(url.toString())).message).toMatch(/: login refused \(role "nobody_here" does not exist\)$/);
    url.username = 'postgres';
    url.pathname = '/no_such_db';
    expect((await refusal(url.toString())).message).toMatch(/: database "no_such_db" does not exist \(create it first/);
  });
});

describe('chatbridge migrate', () => {
  const migrateCommand = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const childEnv = { ...process.env, ...env };
      if (!('CHATBRIDGE_DATABASE_URL' in env)) delete childEnv.CHATBRIDGE_DATABASE_URL;
      execFile(process.execPath, [CLI, 'migrate', ...args], { env: childEnv }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });

  it('creates the schema and says so in one line; again, says it is already there', async () => {
    const url = await cluster.createDatabase();
    expect(await migrateCommand(['--database', url, '--keep-grants'])).toEqual({ code: 0, stdout: `Schema upgraded from version 0 to ${SCHEMA_VERSION}.\n`, stderr: '' });
    expect(await migrateCommand(['--keep-grants'], { CHATBRIDGE_DATABASE_URL: url })).toEqual({ code: 0, stdout: `Schema already at version ${SCHEMA_VERSION}.\n`, stderr: '' });
  });

  it("closes the database to other roles (who could send ChatBridge's notices), unless told to keep its grants", async () => {
    const admin = await open(await cluster.createDatabase());
    await admin.query(`CREATE ROLE app LOGIN; CREATE ROLE stranger LOGIN`);
    const as = (role: string, url: string) => {
      const u = new URL(url);
      u.username = role;
      return u.toString();
    };
    // Open to every role, as PostgreSQL makes a database by default.
    const owned = async () => {
      const url = await cluster.createDatabase();
      await admin.query(`ALTER DATABASE ${new URL(url).pathname.slice(1)} OWNER TO app`);
      await admin.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${new URL(url).pathname.slice(1)} TO PUBLIC`);
      return url;
    };
    const closed = await owned();
    const db = new URL(closed).pathname.slice(1);
    expect(await migrateCommand(['--database', as('app', closed)])).toEqual({
      code: 0,
      stdout: `Schema upgraded from version 0 to ${SCHEMA_VERSION}.\nDatabase "${db}" closed to other roles: only app and its owner may connect or use schema "public" (--keep-grants leaves grants alone).\n`,
      stderr: '',
    });
    await expect(connect(as('stranger', closed))).rejects.toThrow(/permission denied for database/);
    const app = await open(as('app', closed));
    expect((await app.query(`SELECT COUNT(*) AS n FROM jobs`)).rows).toEqual([{ n: 0 }]);

    const kept = await owned();
    expect((await migrateCommand(['--database', as('app', kept), '--keep-grants'])).stdout).toBe(`Schema upgraded from version 0 to ${SCHEMA_VERSION}.\n`);
    const stranger = await open(as('stranger', kept));
    await stranger.query(`NOTIFY chatbridge_jobs, 'still open'`);
  });

  it('says in one line, with exit code 2, when it has no database or cannot use it', async () => {
    expect(await migrateCommand([])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^chatbridge: Which database\? .*\n$/) });
    const port = await closedPort();
    const refused = await migrateCommand(['--database', `postgres://u:pw@127.0.0.1:${port}/db`]);
    expect(refused).toEqual({ code: 2, stdout: '', stderr: `chatbridge: Cannot use the database postgres://u:***@127.0.0.1:${port}/db: connection refused (is PostgreSQL running, on that host and port?)\n` });
  });
});

/** A port nothing listens on (taken, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
