import type pg from 'pg';
import { DataDirError, type Db } from '../queue/db.js';
import { PgConnectError } from '../queue/postgres/connect.js';
import { isProfileName, type ProfileName } from '../api/profile.js';

/**
 * A data dir belongs to one profile (decisions.md "Profile H"): its jobs, keys and accounts
 * mean different things in each. The profile is stored in the settings table at the first
 * start; a data dir that already holds keys or jobs from before profiles existed is personal.
 */
export function claimProfile(db: Db, dataDir: string, requested: ProfileName): void {
  const stored = db
    .transaction((): ProfileName => {
      const found = storedProfileRow(db);
      if (found) return found;
      const used = db.prepare(`SELECT EXISTS (SELECT 1 FROM api_keys) OR EXISTS (SELECT 1 FROM jobs)`).pluck().get() === 1;
      const profile = used ? 'personal' : requested;
      db.prepare(`INSERT INTO settings (name, value) VALUES ('profile', ?)`).run(JSON.stringify(profile));
      return profile;
    })
    .immediate();
  if (stored !== requested) {
    throw new DataDirError(
      `The data dir ${dataDir} belongs to the ${stored} profile; serve it with --profile ${stored}, or use another --data-dir for ${requested}.`,
    );
  }
}

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

/** The profile the data dir was started in; personal until it was started at all. */
export function storedProfile(db: Db): ProfileName {
  return storedProfileRow(db) ?? 'personal';
}

function storedProfileRow(db: Db): ProfileName | undefined {
  const value = db.prepare(`SELECT value FROM settings WHERE name = 'profile'`).pluck().get() as string | undefined;
  const name: unknown = value === undefined ? undefined : JSON.parse(value);
  return isProfileName(name) ? name : undefined;
}
