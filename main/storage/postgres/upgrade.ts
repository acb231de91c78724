import { connect } from './connect.js';
import { closeToOtherRoles } from './grants.js';
import { migrate } from './schema.js';

export interface Upgrade {
  from: number;
  to: number;
  /** Whether the database is now shut to other roles, and the line that says so; null when its grants were kept. */
  grants: { closed: boolean; said: string } | null;
}

/**
 * Creates or upgrades the schema (waiting for any other migration to finish first), then
 * shuts the database to other roles unless told to keep its grants.
 */
export async function upgradeDatabase(url: string, { keepGrants }: { keepGrants: boolean }): Promise<Upgrade> {
  const pool = await connect(url, { max: 1 });
  try {
    const { from, to } = await migrate(pool);
    return { from, to, grants: keepGrants ? null : await closeToOtherRoles(pool) };
  } finally {
    await pool.end();
  }
}
