import { connect } from '../../main/storage/postgres/connect.js';
import { migrate } from '../../main/storage/postgres/schema.js';
import { startPostgres, type PgCluster } from '../support/postgres.js';

/** A throwaway cluster with a migrated database nobody uses, which each test copies. */
export interface MigratedCluster {
  cluster: PgCluster;
  /** A fresh, migrated database's URL (a copy: much faster than migrating each one). */
  newDatabase(): Promise<string>;
}

export async function startMigratedCluster(): Promise<MigratedCluster> {
  const cluster = await startPostgres();
  const url = await cluster.createDatabase();
  const pool = await connect(url, { max: 1 });
  await migrate(pool);
  await pool.end();
  const template = new URL(url).pathname.slice(1);
  return { cluster, newDatabase: () => cluster.createDatabase(template) };
}
