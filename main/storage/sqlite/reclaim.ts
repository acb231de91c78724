import { reclaimSpace, type Db } from './db.js';
import type { Reclaim } from '../ports.js';

/**
 * Gives free pages back to the file system, `pages` at a time, awaiting `between` after
 * each step while `keepGoing` holds; returns how many pages it gave back.
 */
export async function reclaimInSteps(db: Db, pages: number, between: () => Promise<void>, keepGoing = () => true): Promise<number> {
  const before = db.pragma('freelist_count', { simple: true }) as number;
  let left = before;
  while (left > 0 && keepGoing()) {
    const next = reclaimSpace(db, pages);
    // A database whose auto_vacuum could not be turned on yet (see db.ts) frees nothing.
    if (next >= left) break;
    left = next;
    await between();
  }
  return before - left;
}

/** The reclaim step of a data dir's SQLite database. */
export const sqliteReclaim =
  (db: Db): Reclaim =>
  (pages, between, keepGoing) =>
    reclaimInSteps(db, pages, between, keepGoing);
