import { VERSION } from '../core/package-root.js';
import { DataDirError } from '../queue/db.js';
import { findDesktopRuntime, runDesktop } from '../electron/runtime.js';
import { AlreadyRunning } from '../service.js';
import { caps, keys, rotation, setPaused } from './account.js';
import { UsageError } from './args.js';
import { jobs } from './jobs.js';
import { serve } from './serve.js';
import { settings } from './settings.js';
import { status } from './status.js';
import { usage } from './usage.js';
import { webhooks } from './webhooks.js';

const HELP = `chatbridge ${VERSION}: your logged-in chat accounts as a local API

Usage:
  chatbridge start                       the desktop app (headless serve where Electron is unavailable)
  chatbridge serve [--port N] [--host 127.0.0.1] [--data-dir DIR]
  chatbridge keys create --name NAME --scopes completions:read,completions:write [--expires-in 30d]
  chatbridge keys list | keys revoke KEY_ID
  chatbridge caps set (--global | --provider P | --agent ID) --per-hour N|none
  chatbridge rotation set round_robin|least_used|ordered|random
  chatbridge pause | resume
  chatbridge status [--json]
  chatbridge usage [--since 7d] [--by provider|agent|key] [--json]
  chatbridge settings retention [--days N|none]
  chatbridge jobs delete JOB_ID | jobs purge --before DATE
  chatbridge webhooks log JOB_ID | webhooks redeliver JOB_ID | webhooks secret [--rotate]

Every command takes --data-dir DIR (or CHATBRIDGE_DATA_DIR).
`;

export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve(args);
      case 'start': {
        // The desktop app where Electron can run; otherwise the same service, headless.
        const runtime = findDesktopRuntime();
        if (runtime.ok) return await runDesktop(runtime.binary, args);
        process.stdout.write(`Electron runtime unavailable (${runtime.reason}): serving headless instead.\n`);
        return await serve(args);
      }
      case 'keys':
        return keys(args);
      case 'caps':
        return caps(args);
      case 'rotation':
        return rotation(args);
      case 'pause':
        return setPaused(true, args);
      case 'resume':
        return setPaused(false, args);
      case 'status':
        return await status(args);
      case 'webhooks':
        return webhooks(args);
      case 'usage':
        return await usage(args);
      case 'settings':
        return settings(args);
      case 'jobs':
        return await jobs(args);
      case 'version':
      case '--version':
        process.stdout.write(`${VERSION}\n`);
        return;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(HELP);
        return;
      default:
        throw new UsageError(`Unknown command "${command}". Run chatbridge help.`);
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof AlreadyRunning || error instanceof DataDirError) {
      process.stderr.write(`chatbridge: ${error.message}\n`);
      process.exit(2);
    }
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE' || e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL') {
      process.stderr.write(`chatbridge: cannot listen: ${e.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}
