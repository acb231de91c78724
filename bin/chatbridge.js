#!/usr/bin/env node
// The command-line entry. The TypeScript sources are compiled to dist/ by `npm install`
// (the `prepare` script), so this stays a short hop into the compiled CLI. It never builds
// itself (a running server's dist/ stays as it is); it says when the app's sources changed
// since the last build, which would otherwise run silently as the old code.
import { fileURLToPath } from 'node:url';
import { buildState } from '../scripts/build-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const { state, changed: edited } = buildState(root, { appOnly: true });
if (state === 'stale') {
  const more = edited.length > 1 ? ` and ${edited.length - 1} more` : '';
  process.stderr.write(`chatbridge: dist/ is older than the sources (${edited[0]}${more} changed since the last build); npm run build updates it\n`);
}

import('../dist/main/cli/main.js')
  .then((cli) => cli.main(process.argv.slice(2)))
  .catch((error) => {
    const missing = error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/main/cli');
    process.stderr.write(
      missing ? 'chatbridge: not built yet; run npm install (or npm run build) first\n' : `chatbridge: ${error?.stack ?? error}\n`,
    );
    process.exit(1);
  });
