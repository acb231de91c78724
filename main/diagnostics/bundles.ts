import { readdirSync, readFileSync } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BUNDLE_NAME, DIAGNOSTIC_FILES, diagnosticsRoot, type DiagnosticManifest } from '../core/diagnostics.js';
import { ApiError, invalid } from '../core/errors.js';

/** Every file a bundle may hold, with the type it is served as; nothing else is ever read. */
const FILE_TYPES: Record<string, string> = {
  [DIAGNOSTIC_FILES.screenshot]: 'image/png',
  [DIAGNOSTIC_FILES.page]: 'text/html; charset=utf-8',
  [DIAGNOSTIC_FILES.manifest]: 'application/json; charset=utf-8',
};

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

  /** One file of a bundle; 400 for a name that cannot be one, 404 for one that is not there. */
  async file(bundle: string, file: string): Promise<BundleFile> {
    if (!BUNDLE_NAME.test(bundle)) throw invalid('bundle', 'A bundle is named <job id>-<attempt>, such as job_abc123-1.');
    const contentType = FILE_TYPES[file];
    if (!contentType) throw invalid('file', `A bundle holds ${Object.keys(FILE_TYPES).join(', ')}.`);
    const path = join(this.root, bundle, file);
    // Only a plain file in a plain folder the agent wrote: never a link to somewhere else.
    const folder = await lstat(join(this.root, bundle)).catch(() => null);
    const info = folder?.isDirectory() ? await lstat(path).catch(() => null) : null;
    if (!info?.isFile()) throw new ApiError('NOT_FOUND', `No ${file} in diagnostic bundle ${bundle}; only the newest bundles are kept.`);
    return { data: await readFile(path), contentType };
  }
}
