/**
 * The shared tables' change notices (main/storage/postgres/table-changes.ts) on a real
 * PostgreSQL: a change announced by one instance is heard by another, only on commit; after
 * the listening connection is lost, every table counts as changed once it listens again
 * (what was announced meanwhile was not heard), and later changes are heard again.
 */
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../main/storage/postgres/connect.js';
import { announceTableChange, TableChanges } from '../../main/storage/postgres/table-changes.js';
import { until } from '../support/until.js';
import { startMigratedCluster, type MigratedCluster } from './migrated-cluster.js';

let postgres: MigratedCluster;
beforeAll(async () => {
  postgres = await startMigratedCluster();
});
afterAll(() => postgres?.cluster.stop());

const pools: pg.Pool[] = [];
const listening: TableChanges[] = [];
afterEach(async () => {
  for (const changes of listening.splice(0)) changes.close();
  await Promise.all(pools.splice(0).map((p) => p.end()));
});

async function pool(url: string): Promise<pg.Pool> {
  const p = await connect(url, { max: 3 });
  pools.push(p);
  return p;
}

describe('shared table change notices', () => {
  it('hears a committed change of another instance, never a rolled-back one', async () => {
    const url = await postgres.newDatabase();
    const [a, b] = [await pool(url), await pool(url)];
    const changes = new TableChanges(b);
    listening.push(changes);
    const heard: string[] = [];
    changes.on('settings', () => heard.push('settings'));
    changes.on('api_keys', () => heard.push('api_keys'));
    await changes.listen();

    const c = await a.connect();
    await c.query('BEGIN');
    await announceTableChange(c, 'api_keys');
    await c.query('ROLLBACK');
    c.release();
    await announceTableChange(a, 'settings');
    await until(() => heard.length > 0, 15_000, 'the notice');
    // PostgreSQL delivers notices in the order their transactions committed: had the rolled-back
    // one been delivered, it would have come first.
    expect(heard).toEqual(['settings']);
  });

  it('after its connection is lost, listens again and calls every table changed, then hears new changes', async () => {
    const url = await postgres.newDatabase();
    const [a, b, admin] = [await pool(url), await pool(url), await pool(url)];
    const changes = new TableChanges(b);
    listening.push(changes);
    const heard: string[] = [];
    changes.on('settings', () => heard.push('settings'));
    changes.on('accounts', () => heard.push('accounts'));
    await changes.listen();

    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN chatbridge_tables'`);
    // Announced while nobody listens: lost, so the re-listen stands for it.
    await announceTableChange(a, 'accounts');
    await until(() => heard.length >= 2, 15_000, 'the re-listen');
    expect(heard.sort()).toEqual(['accounts', 'settings']);
    heard.length = 0;
    await announceTableChange(a, 'settings');
    await until(() => heard.length > 0, 15_000, 'a notice after the re-listen');
    expect(heard).toEqual(['settings']);
  });
});
