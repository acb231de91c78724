/**
 * The two engines' schemas, written as numbered steps in main/storage/sqlite/migrations/ and
 * main/storage/postgres/migrations/, hold the same tables and columns (names, and whether a
 * column takes null), but for what only one engine has a use for, named below with its reason;
 * and a database at any earlier schema upgrades to the schema of a new one.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';
import { connect } from '../../main/storage/postgres/connect.js';
import { MIGRATIONS as PG_MIGRATIONS } from '../../main/storage/postgres/migrations/index.js';
import { migrate } from '../../main/storage/postgres/schema.js';
import Database from 'better-sqlite3';
import { memoryDatabase, openDatabase } from '../../main/storage/sqlite/db.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../main/storage/sqlite/migrations/index.js';
import { sharedPostgres } from '../support/shared-postgres.js';
import type { PgCluster } from '../support/postgres.js';

/** "table.column" → whether it takes null; "table" alone for a table. */
type Shape = Map<string, boolean | null>;

/** What one engine has and the other has no use for. */
const ONLY = {
  sqlite: {
    // This machine's agents stay in the data dir whichever engine holds the rest (main/queue/agent-table.ts).
    agents: 'the agents belong to the machine that runs their browsers',
  },
  postgres: {
    chatbridge_schema: "the schema's version (SQLite keeps it in PRAGMA user_version)",
    devices: 'the instances sharing the database',
    device_agents: "every device's agents as published, for every instance's API",
    request_budgets: "per-key request limits counted across instances (SQLite's are counted in memory)",
    locks: 'the rows instances take turns by',
    'attempts.device_id': 'the instance whose agent runs the attempt',
    'webhook_deliveries.claimed_by': 'the instance sending a delivery',
    'webhook_deliveries.claim_until': "until when that instance's claim holds",
    'webhook_attempts.device_id': 'the instance that sent it',
  },
};

let cluster: PgCluster;
let pool: pg.Pool;

beforeAll(async () => {
  cluster = await sharedPostgres();
  pool = await connect(await cluster.createDatabase());
  await migrate(pool);
});
afterAll(async () => {
  await pool?.end();
  await cluster?.stop();
});

function sqliteShape(): Shape {
  const db = memoryDatabase();
  try {
    const shape: Shape = new Map();
    const tables = db.prepare<[], string>(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).pluck().all();
    for (const table of tables) {
      shape.set(table, null);
      for (const c of db.prepare<[string], { name: string; notnull: number; pk: number }>('SELECT name, "notnull", pk FROM pragma_table_info(?)').all(table)) {
        // A primary key column never takes null, whether or not it says NOT NULL.
        shape.set(`${table}.${c.name}`, c.notnull === 0 && c.pk === 0);
      }
    }
    return shape;
  } finally {
    db.close();
  }
}

async function postgresShape(): Promise<Shape> {
  const shape: Shape = new Map();
  const { rows } = await pool.query<{ table_name: string; column_name: string; is_nullable: string }>(
    `SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public'`,
  );
  for (const r of rows) {
    shape.set(r.table_name, null);
    shape.set(`${r.table_name}.${r.column_name}`, r.is_nullable === 'YES');
  }
  return shape;
}

/** The shape without what only `engine` has: its own tables (and their columns) and columns. */
function shared(shape: Shape, engine: keyof typeof ONLY): Record<string, boolean | null> {
  const own = Object.keys(ONLY[engine]);
  return Object.fromEntries([...shape].filter(([name]) => !own.includes(name) && !own.includes(name.split('.')[0]!)).sort(([a], [b]) => a.localeCompare(b)));
}

describe('the two engines', () => {
  it('hold the same tables and columns, each taking null or not alike, but for what only one has a use for', async () => {
    const sqlite = sqliteShape();
    const postgres = await postgresShape();
    expect(shared(sqlite, 'sqlite')).toEqual(shared(postgres, 'postgres'));
    // Each exception is still there to excuse: one gone from its engine is taken off the list.
    for (const name of Object.keys(ONLY.sqlite)) expect(sqlite.has(name), name).toBe(true);
    for (const name of Object.keys(ONLY.postgres)) expect(postgres.has(name), name).toBe(true);
  });
});

describe('the migrations of each engine', () => {
  it.each([
    ['sqlite', SQLITE_MIGRATIONS],
    ['postgres', PG_MIGRATIONS],
  ] as const)('%s: every numbered file of its folder is one step, in number order, from 001 without a gap', async (engine, migrations) => {
    const folder = join(PACKAGE_ROOT, 'main/storage', engine, 'migrations');
    const files = readdirSync(folder).filter((f) => f !== 'index.ts').sort();
    expect(files.map((f) => f.slice(0, 4))).toEqual(migrations.map((_, i) => `${String(i + 1).padStart(3, '0')}-`));
    for (const [i, file] of files.entries()) {
      const { sql } = (await import(join(folder, file))) as { sql: string };
      expect(migrations[i], file).toBe(sql);
    }
  });
});

/**
 * A database left at any earlier schema (a data dir or a shared database of an older
 * ChatBridge) is brought up to the same tables, columns and indexes as a new one.
 */
describe('an upgrade from every earlier schema', () => {
  const dump = (db: Database.Database) => db.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name`).all();

  it('sqlite', () => {
    const fresh = memoryDatabase();
    const expected = dump(fresh);
    fresh.close();
    for (let version = 1; version < SQLITE_MIGRATIONS.length; version++) {
      const dir = mkdtempSync(join(tmpdir(), 'chatbridge-upgrade-'));
      try {
        const older = new Database(join(dir, 'chatbridge.db'));
        // As openDatabase makes it (one made before that setting is test/unit/job-retention.test.ts's).
        older.pragma('auto_vacuum = INCREMENTAL');
        for (const step of SQLITE_MIGRATIONS.slice(0, version)) older.exec(step);
        older.pragma(`user_version = ${version}`);
        older.close();
        const db = openDatabase(dir);
        expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length);
        expect(dump(db), `from schema ${version}`).toEqual(expected);
        db.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it('postgres', async () => {
    const columns = async (p: pg.Pool) =>
      (await p.query(`SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2`)).rows;
    const indexes = async (p: pg.Pool) => (await p.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`)).rows;
    const expected = { columns: await columns(pool), indexes: await indexes(pool) };
    // Side by side: each is its own database.
    const versions = PG_MIGRATIONS.slice(1).map((_, i) => i + 1);
    await Promise.all(
      versions.map(async (version) => {
        const older = await connect(await cluster.createDatabase());
        try {
          await older.query('CREATE TABLE chatbridge_schema (version INTEGER NOT NULL)');
          for (const step of PG_MIGRATIONS.slice(0, version)) await older.query(step);
          await older.query('INSERT INTO chatbridge_schema (version) VALUES ($1)', [version]);
          expect(await migrate(older)).toEqual({ from: version, to: PG_MIGRATIONS.length });
          expect({ columns: await columns(older), indexes: await indexes(older) }, `from schema ${version}`).toEqual(expected);
        } finally {
          await older.end();
        }
      }),
    );
  });
});
