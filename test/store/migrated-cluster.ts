import { connect } from '../../main/storage/postgres/connect.js';
import { migrate } from '../../main/storage/postgres/schema.js';
import type { PgCluster } from '../support/postgres.js';
import { sharedPostgres } from '../support/shared-postgres.js';

/** The run's cluster with a migrated database of this file nobody uses, which each test copies. */
export interface MigratedCluster {
  cluster: PgCluster;
  /** A fresh, migrated database's URL (a copy: much faster than migrating each one). */
  newDatabase(): Promise<string>;
}

export async function startMigratedCluster(): Promise<MigratedCluster> {
  const cluster = await sharedPostgres();
  const url = await cluster.createDatabase();
  const pool = await connect(url, { max: 1 });
  await migrate(pool);
  await pool.end();
  const template = new URL(url).pathname.slice(1);
  return { cluster, newDatabase: () => cluster.createDatabase(template) };
}
