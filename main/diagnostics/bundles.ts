import { readdirSync, readFileSync } from 'node:fs';
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { BUNDLE_NAME, DIAGNOSTIC_FILES, diagnosticsRoot, type DiagnosticManifest } from '../core/diagnostics.js';
import { ApiError, invalid } from '../core/errors.js';

/**
 * Every file a bundle may hold, with the type it is served as; nothing else is ever read. A
 * Map, not an object: a name such as `__proto__` or `constructor` is no key of it.
 */
const FILE_TYPES = new Map<string, string>([
  [DIAGNOSTIC_FILES.screenshot, 'image/png'],
  [DIAGNOSTIC_FILES.page, 'text/html; charset=utf-8'],
  [DIAGNOSTIC_FILES.manifest, 'application/json; charset=utf-8'],
]);

export interface BundleFile {
  data: Buffer;
  contentType: string;
}

/**
 * Reads the diagnostic bundles the agents keep (main/core/diagnostics.ts has the layout)
 * for the dashboard: a job's bundles by their manifests, and one file of a bundle. Names
 * are checked against the bundle pattern and the fixed list of files, so no request can
 * reach outside `<data dir>/diagnostics`.
 */
export class DiagnosticBundles {
  private readonly root: string;

  constructor(dataDir: string) {
    this.root = diagnosticsRoot(dataDir);
  }

  /**
   * The bundles of a job's failed attempts, oldest attempt first; unreadable ones are left
   * out. Read in one go: the folder holds at most DIAGNOSTICS_KEPT small manifests.
   */
  ofJob(jobId: string): { name: string; manifest: DiagnosticManifest }[] {
    let names: string[];
    try {
      names = readdirSync(this.root).filter((n) => BUNDLE_NAME.exec(n)?.[1] === jobId);
    } catch {
      return []; // no failure kept yet
    }
    const bundles = names.map((name) => {
      try {
        const manifest = JSON.parse(readFileSync(join(this.root, name, DIAGNOSTIC_FILES.manifest), 'utf8')) as DiagnosticManifest;
        return manifest.job_id === jobId ? { name, manifest } : null;
      } catch {
        return null; // a bundle being written, or pruned meanwhile
      }
    });
    return bundles.filter((b) => b !== null).sort((a, b) => a.manifest.attempt - b.manifest.attempt);
  }

  /** Deletes every bundle of a job (the job was deleted: its screenshots and pages go with it). */
  async removeOfJob(jobId: string): Promise<void> {
    await this.removeWhere(async (id) => id === jobId);
  }

  /**
   * Deletes the bundles whose job `gone` says is gone or has lost its text (retention, a
   * purge by the command line or another instance): a bundle shows the conversation's shape,
   * and must not outlive what it was kept for. Resolves with how many it deleted.
   */
  async removeWhere(gone: (jobId: string) => Promise<boolean>): Promise<number> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const jobId = BUNDLE_NAME.exec(name)?.[1];
      if (jobId === undefined || !(await gone(jobId))) continue;
      await rm(join(this.root, name), { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  /** One file of a bundle; 400 for a name that cannot be one, 404 for one that is not there. */
  async file(bundle: string, file: string): Promise<BundleFile> {
    if (!BUNDLE_NAME.test(bundle)) throw invalid('bundle', 'A bundle is named <job id>-<attempt>, such as job_abc123-1.');
    const contentType = FILE_TYPES.get(file);
    if (!contentType) throw invalid('file', `A bundle holds ${[...FILE_TYPES.keys()].join(', ')}.`);
    const path = join(this.root, bundle, file);
    // Only a plain file in a plain folder the agent wrote: never a link to somewhere else.
    const folder = await lstat(join(this.root, bundle)).catch(() => null);
    const info = folder?.isDirectory() ? await lstat(path).catch(() => null) : null;
    if (!info?.isFile()) throw new ApiError('NOT_FOUND', `No ${file} in diagnostic bundle ${bundle}; only the newest bundles are kept.`);
    return { data: await readFile(path), contentType };
  }
}
