#!/usr/bin/env node
// The command-line entry. The TypeScript sources are compiled to dist/ by `npm install`
// (the `prepare` script), so this stays a short hop into the compiled CLI.
import('../dist/main/cli/main.js')
  .then((cli) => cli.main(process.argv.slice(2)))
  .catch((error) => {
    const missing = error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/main/cli');
    process.stderr.write(
      missing ? 'chatbridge: not built yet; run npm install (or npm run build) first\n' : `chatbridge: ${error?.stack ?? error}\n`,
    );
    process.exit(1);
  });
