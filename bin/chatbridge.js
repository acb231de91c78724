#!/usr/bin/env node
// The command-line entry. The TypeScript sources are compiled to dist/ by `npm install`
// (the `prepare` script), so this stays a one-line hop into the compiled CLI.
import('../dist/main/cli/main.js').then((cli) => cli.main(process.argv.slice(2)));
