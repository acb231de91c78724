import pg from 'pg';
import { inject } from 'vitest';
import { createDatabase, startPostgres, type PgCluster } from './postgres.js';

/**
 * The run's PostgreSQL cluster (postgres-global-setup.ts) as this test file's PgCluster:
 * `createDatabase` makes the file's own databases there, `stop` drops them. Run without
 * that global setup (another vitest config), a cluster of the file's own, as before.
 *
 * Other files use the cluster at the same time: a file that reads or ends sessions through
 * pg_stat_activity keeps to its own database (`datname = current_database()`). A test that
 * stops or restarts the server, or changes cluster-wide settings, starts its own with
 * startPostgres.
 */
export async function sharedPostgres(): Promise<PgCluster> {
  const adminUrl = inject('postgresAdminUrl');
  if (!adminUrl) return startPostgres();
  const made: string[] = [];
  return {
    startMs: 0,
    adminUrl,
    async createDatabase(template) {
      const url = await createDatabase(adminUrl, template);
      made.push(new URL(url).pathname.slice(1));
      return url;
    },
    // What the file left connected (a killed process's sessions) is ended with the database.
    async stop() {
      const client = new pg.Client({ connectionString: `${adminUrl}/postgres` });
      await client.connect();
      try {
        for (const name of made.splice(0).reverse()) await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
