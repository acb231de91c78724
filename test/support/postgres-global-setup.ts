/**
 * vitest globalSetup: one throwaway PostgreSQL cluster for the whole run, instead of an
 * initdb and a server start in each test file (1.4-2 s of wall time and ~1 s of CPU each,
 * on the shared 2-core machine). Files get their own databases in it (shared-postgres.ts).
 */
import type { TestProject } from 'vitest/node';
import { postgresInstalled, startPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's cluster as a postgres:// URL of its superuser, without a database; '' when PostgreSQL is not installed. */
    postgresAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  if (!postgresInstalled()) {
    project.provide('postgresAdminUrl', '');
    return () => {};
  }
  // Two files at a time, each with pools of its own and the instances it spawns.
  const cluster = await startPostgres({ maxConnections: 200 });
  project.provide('postgresAdminUrl', cluster.adminUrl);
  return () => cluster.stop();
}
