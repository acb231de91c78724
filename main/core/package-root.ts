import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of ChatBridge's package.json, whether code runs from the sources or from dist/. */
function findPackageRoot(): { root: string; version: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'chatbridge') return { root: dir, version: pkg.version ?? '0.0.0' };
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('ChatBridge package.json not found');
    dir = parent;
  }
}

const found = findPackageRoot();
export const PACKAGE_ROOT = found.root;
export const VERSION = found.version;
