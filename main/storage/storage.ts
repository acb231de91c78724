import type { ServedStorage, ServeOptions, Storage, StorageOptions } from './ports.js';
export type { GrantsPolicy } from './ports.js';
import type { Upgrade } from './postgres/upgrade.js';
import type { AgentTable } from '../queue/agent-table.js';
import { SqliteAgentTable } from './sqlite/agent-table.js';
import { openDatabase } from './sqlite/db.js';

export { holdsDatabase } from './sqlite/db.js';

export type { DeviceAgents, Reclaim, ServedStorage, Storage } from './ports.js';
export { StorageRefused } from './refused.js';

/**
 * Opens the storage a command names, migrated to this version's schema; it listens to no
 * other instance (a command reads what it needs when it runs). The engine is loaded only
 * when named, so a command on a data dir never loads the PostgreSQL driver.
 */
export async function openStorage(options: StorageOptions): Promise<Storage> {
  if (options.databaseUrl) return (await import('./postgres/postgres-storage.js')).openPostgresStorage(options.databaseUrl, options);
  return (await import('./sqlite/sqlite-storage.js')).openSqliteStorage(options);
}

/**
 * Opens the storage a service runs on: the data dir's profile claimed, and with a database
 * its schema migrated, its profile claimed, other instances' changes heard from now on.
 */
export async function serveStorage(options: ServeOptions): Promise<ServedStorage> {
  const { serveSqliteStorage } = await import('./sqlite/sqlite-storage.js');
  if (!options.databaseUrl) return serveSqliteStorage(options);
  const { servePostgresStorage } = await import('./postgres/postgres-storage.js');
  return servePostgresStorage(options.databaseUrl, options);
}

/** A service's storage in memory, migrated and empty: for tests of the queue that need no disk. */
export async function serveStorageInMemory(options: Pick<StorageOptions, 'clock' | 'ids'>): Promise<ServedStorage> {
  return (await import('./sqlite/sqlite-storage.js')).serveMemoryStorage(options);
}

/** Runs `work` on the storage a command names, and closes it. */
export async function withStorage<T>(options: StorageOptions, work: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = await openStorage(options);
  try {
    return await work(storage);
  } finally {
    await storage.close();
  }
}

/** `chatbridge migrate`: a shared database brought up to this version's schema, and shut to other roles unless its grants are kept. */
export async function upgradeDatabase(url: string, options: { keepGrants: boolean }): Promise<Upgrade> {
  return (await import('./postgres/upgrade.js')).upgradeDatabase(url, options);
}

/**
 * Runs `work` on this machine's agents (their rows, caps included), which no other instance
 * shares: they are in the data dir whichever engine holds the rest. `readOnly` work refuses
 * a data dir that does not exist rather than create it.
 */
export function withAgentTable<T>(dataDir: string, work: (agents: AgentTable) => T, { readOnly = false } = {}): T {
  const db = openDatabase(dataDir, { create: !readOnly });
  try {
    return work(new SqliteAgentTable(db));
  } finally {
    db.close();
  }
}
