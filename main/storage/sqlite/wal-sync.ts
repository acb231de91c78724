import { closeSync, fdatasync, openSync } from 'node:fs';
import type { Db } from './db.js';

/** Makes a file's written bytes durable, calling back once they are (at once when there is nothing to flush). */
export type SyncFile = (path: string, done: (error: Error | null) => void) => void;

/**
 * fdatasync through a descriptor of its own: the kernel flushes the file, whoever wrote it.
 * Only the flush goes to the thread pool: opening and closing a file whose pages are cached
 * take microseconds on this thread, where each trip through the pool wakes a pool thread,
 * then the loop again, and on a busy machine waits for a core each time.
 * No log file means nothing to flush: SQLite removes it only once the last connection has
 * copied it into the database and synced that.
 */
const syncFile: SyncFile = (path, done) => {
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch (error) {
    const failure = error as NodeJS.ErrnoException;
    return done(failure.code === 'ENOENT' ? null : failure);
  }
  fdatasync(fd, (syncError) => {
    let closeError: Error | null = null;
    try {
      closeSync(fd);
    } catch (error) {
      closeError = error as Error;
    }
    done(syncError ?? closeError);
  });
};

/** The log could not be made durable: what is on disk is unknown, so nothing more may be answered. */
export class WalSyncFailed extends Error {}

/**
 * The fsync of a group commit, off the event loop. The group's transaction commits with
 * synchronous=NORMAL, which writes the log's frames but does not wait for the disk; this
 * then flushes the log file on libuv's thread pool, and the group's callers hear of their
 * commit once it is done. So a 2xx still means on disk (as with synchronous=FULL), and the
 * event loop serves requests meanwhile instead of waiting for the disk.
 *
 * Why that is as durable as FULL: a flush of the file covers every byte written to it
 * before the flush began (the kernel's cache is the file's, not a descriptor's), and a
 * checkpoint that copies the log into the database syncs both files itself at NORMAL.
 * While one flush runs, groups that commit wait for the next one, which then covers them
 * all: under load one flush serves several groups.
 *
 * A flush that fails leaves what is on disk unknown, and the jobs it would have covered are
 * already visible in this process: answering an error would have their callers send them
 * again while they may run. Its callers hear nothing, and the flush throws WalSyncFailed as
 * an uncaught error, which stops a served process as a crash would (the desktop app's main
 * process shows it in a dialog); at the next start the database holds what reached the disk.
 */
export class WalSync {
  private flushing = false;
  private waiting: (() => void)[] = [];
  private idle: (() => void)[] = [];

  constructor(
    private readonly logFile: string,
    private readonly sync: SyncFile = syncFile,
  ) {}

  /** Whether a flush is under way: a commit made now waits for the next one. */
  get busy(): boolean {
    return this.flushing;
  }

  /** Calls `then` once no flush is under way (at once if none is). */
  whenIdle(then: () => void): void {
    if (!this.flushing) return then();
    this.idle.push(then);
  }

  /** Calls `then` once everything written to the log before this call is on disk. */
  after(then: () => void): void {
    this.waiting.push(then);
    if (!this.flushing) this.flush();
  }

  private flush(): void {
    const covered = this.waiting;
    this.waiting = [];
    this.flushing = true;
    this.sync(this.logFile, (error) => {
      this.flushing = false;
      if (error) throw new WalSyncFailed(`Could not flush the database's log ${this.logFile} to disk: ${error.message}`, { cause: error });
      for (const then of covered) then();
      if (this.waiting.length > 0) return this.flush();
      const idle = this.idle;
      this.idle = [];
      for (const then of idle) then();
    });
  }
}

const ofDb = new WeakMap<Db, WalSync | null>();

/**
 * The log sync of a database, shared by all its group commits so that one flush serves
 * them all; null for a database without a log file (in memory, or not in WAL mode), whose
 * commits need no flush of their own.
 */
export function walSyncOf(db: Db): WalSync | null {
  let sync = ofDb.get(db);
  if (sync === undefined) {
    const wal = !db.memory && db.pragma('journal_mode', { simple: true }) === 'wal';
    sync = wal ? new WalSync(`${db.name}-wal`) : null;
    ofDb.set(db, sync);
  }
  return sync;
}
