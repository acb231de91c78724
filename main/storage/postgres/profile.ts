import type pg from 'pg';
import { PgConnectError } from './connect.js';
import { isProfileName, type ProfileName } from '../../core/profile-name.js';

/**
 * A shared database belongs to one profile too (decisions.md "Profile H"): the first instance
 * served on it records its profile, and `serve --database` with the other one is refused in
 * one line (a PgConnectError, told as a setup refusal). Instances starting together with
 * different profiles: the first insert wins, the others wait for it and are refused.
 */
export async function claimDatabaseProfile(pool: pg.Pool, requested: ProfileName): Promise<void> {
  await pool.query(`INSERT INTO settings (name, value) VALUES ('profile', $1::jsonb) ON CONFLICT (name) DO NOTHING`, [
    JSON.stringify(requested),
  ]);
  const { rows } = await pool.query<{ value: unknown; database: string }>(
    `SELECT value, current_database() AS database FROM settings WHERE name = 'profile'`,
  );
  const stored = rows[0]!.value;
  if (stored !== requested) {
    throw new PgConnectError(
      `The database ${rows[0]!.database} belongs to the ${String(stored)} profile; serve it with --profile ${String(stored)}, or use another --database for ${requested}.`,
    );
  }
}

/** The profile the shared database was first served in; personal until it was served at all. */
export async function storedDatabaseProfile(pool: pg.Pool): Promise<ProfileName> {
  const { rows } = await pool.query<{ value: unknown }>(`SELECT value FROM settings WHERE name = 'profile'`);
  const name = rows[0]?.value;
  return isProfileName(name) ? name : 'personal';
}
