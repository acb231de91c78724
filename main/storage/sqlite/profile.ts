import { DataDirError, type Db } from './db.js';
import { isProfileName, type ProfileName } from '../../core/profile-name.js';

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

/** The profile the data dir was started in; personal until it was started at all. */
export function storedProfile(db: Db): ProfileName {
  return storedProfileRow(db) ?? 'personal';
}

function storedProfileRow(db: Db): ProfileName | undefined {
  const value = db.prepare(`SELECT value FROM settings WHERE name = 'profile'`).pluck().get() as string | undefined;
  const name: unknown = value === undefined ? undefined : JSON.parse(value);
  return isProfileName(name) ? name : undefined;
}
