import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { AgentFailure } from '../core/agent.js';
import type { AttachmentFile } from '../core/attachments.js';
import type { JobRow } from '../core/jobs.js';
import type { JobStore } from './job-store.js';

/**
 * The folders an attempt's files are written to are named for the process that made them,
 * so that a process starting up can tell a folder left by a crash (its process gone) from
 * one of another service running on the same machine.
 */
const PREFIX = 'chatbridge-attempt-';

/** A job's files on disk for one attempt: what the agent is given, and the folder's removal. */
export interface AttemptFiles {
  files: AttachmentFile[];
  /** Removes the folder with the files; safe to call more than once. */
  remove(): Promise<void>;
}

/** What a file system says of a name it cannot take. */
const NAME_REFUSED = new Set(['ENAMETOOLONG', 'EINVAL', 'EILSEQ']);

const NONE: AttemptFiles = { files: [], remove: async () => {} };

/**
 * Writes a job's files from the store to a folder private to the attempt (mode 0700, under
 * the system's temporary folder), one subfolder per file so that each file's name is exactly
 * the caller's `filename`, which is the name the page shows. The bytes come from the store
 * chunk by chunk; each file is checked against its size and SHA-256 as written. A file the
 * store no longer holds whole fails the attempt `attachment_failed` (nothing was sent).
 */
export async function writeAttemptFiles(store: JobStore, job: JobRow, attempt: number): Promise<AttemptFiles> {
  if (job.attachments.length === 0) return NONE;
  // mkdtemp makes the folder 0700: only this user reads the files.
  const dir = await mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-${job.id}-${attempt}-`));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    const files: AttachmentFile[] = [];
    for (const [position, file] of job.attachments.entries()) {
      // The submission refused names with a path in them; a row that holds one anyway is not followed out of the folder.
      if (basename(file.filename) !== file.filename || file.filename === '.' || file.filename === '..') {
        throw new AgentFailure('attachment_failed', `file ${position + 1}'s name is not a plain file name.`);
      }
      const folder = join(dir, String(position + 1));
      await mkdir(folder, { mode: 0o700 });
      const path = join(folder, file.filename);
      const written = await writeFromStore(store, job.id, position, path);
      if (written.bytes !== file.bytes || written.sha256 !== file.sha256) {
        throw new AgentFailure(
          'attachment_failed',
          `file "${file.filename}" could not be read back whole from the store (${written.bytes} of ${file.bytes} bytes, its SHA-256 ${written.sha256 === file.sha256 ? 'matching' : 'not matching'}).`,
        );
      }
      files.push({ ...file, path });
    }
    return { files, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** One stored file to `path`, a chunk at a time; its size and SHA-256 as written. */
async function writeFromStore(store: JobStore, jobId: string, position: number, path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  const handle = await open(path, 'wx', 0o600).catch((error: NodeJS.ErrnoException) => {
    // A name the contract allows but this file system does not (over 255 bytes in UTF-8, say):
    // another attempt would fail the same way.
    if (error.code && NAME_REFUSED.has(error.code)) {
      throw new AgentFailure('attachment_failed', `file "${basename(path)}" cannot be written under its name on this machine (${error.code}).`);
    }
    throw error;
  });
  try {
    for await (const chunk of store.fileChunks(jobId, position)) {
      hash.update(chunk);
      bytes += chunk.length;
      await handle.write(chunk);
    }
  } finally {
    await handle.close();
  }
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * Removes the attempt folders a crashed process left (its pid no longer running); those of
 * processes alive, this one's or another service's, stay. Returns how many went.
 */
export async function sweepStaleAttemptFolders(root = tmpdir()): Promise<number> {
  let removed = 0;
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const pid = new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1];
    if (pid === undefined || processAlive(Number(pid))) continue;
    await rm(join(root, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
