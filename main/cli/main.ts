import { VERSION } from '../core/package-root.js';
import { UsageError } from './args.js';

// Each command loads what it needs when it runs: `ask` and `mcp`, clients of a running
// service, start in a tenth of the time without the service, the database and the browsers.
const account = () => import('./account.js');
const serve = async (args: string[]) => (await import('./serve.js')).serve(args);

const HELP = `chatbridge ${VERSION}: your logged-in chat accounts as a local API

Usage:
  chatbridge start                       the desktop app (headless serve where Electron is unavailable)
  chatbridge serve [--port N] [--host 127.0.0.1 [--allow-remote]] [--data-dir DIR]
  chatbridge keys create --name NAME --scopes completions:read,completions:write[,metrics:read] [--expires-in 30d]
  chatbridge keys list | keys revoke KEY_ID
  chatbridge caps set (--global | --provider P | --agent ID) --per-hour N|none
  chatbridge rotation set round_robin|least_used|ordered|random
  chatbridge pause | resume
  chatbridge status [--json]
  chatbridge admin-token [--rotate]      the dashboard link; --rotate makes a new one (open dashboards must reopen)
  chatbridge ask "PROMPT" [--provider P] [--continue REF] [--json] [--no-wait]   (PROMPT - reads stdin)
  chatbridge mcp [--max-wait 5m]         an MCP server on stdio (needs CHATBRIDGE_API_KEY)
  chatbridge usage [--since 7d] [--by provider|agent|key] [--json]
  chatbridge settings retention [--days N|none]
  chatbridge jobs delete JOB_ID | jobs purge --before DATE
  chatbridge webhooks log JOB_ID | webhooks redeliver JOB_ID | webhooks secret [--rotate]

Every command takes --data-dir DIR (or CHATBRIDGE_DATA_DIR). ask and mcp call the running
service: CHATBRIDGE_URL overrides its address, CHATBRIDGE_API_KEY is the key they send.
`;

export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve(args);
      case 'start': {
        // The desktop app where Electron can run; otherwise the same service, headless.
        const { findDesktopRuntime, runDesktop } = await import('../electron/runtime.js');
        const runtime = findDesktopRuntime();
        if (runtime.ok) return await runDesktop(runtime.binary, args);
        process.stdout.write(`Electron runtime unavailable (${runtime.reason}): serving headless instead.\n`);
        return await serve(args);
      }
      case 'keys':
        return (await account()).keys(args);
      case 'caps':
        return (await account()).caps(args);
      case 'rotation':
        return (await account()).rotation(args);
      case 'pause':
        return (await account()).setPaused(true, args);
      case 'resume':
        return (await account()).setPaused(false, args);
      case 'status':
        return await (await import('./status.js')).status(args);
      case 'admin-token':
        return await (await import('./admin-token.js')).adminTokenCommand(args);
      case 'ask':
        process.exitCode = await (await import('./ask.js')).ask(args);
        return;
      case 'mcp':
        return await (await import('./mcp.js')).mcp(args);
      case 'webhooks':
        return (await import('./webhooks.js')).webhooks(args);
      case 'usage':
        return await (await import('./usage.js')).usage(args);
      case 'settings':
        return (await import('./settings.js')).settings(args);
      case 'jobs':
        return await (await import('./jobs.js')).jobs(args);
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
    if (error instanceof UsageError || (await isSetupRefusal(error))) {
      process.stderr.write(`chatbridge: ${(error as Error).message}\n`);
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

/** A data dir already served or unusable: told in one line like a usage error. */
async function isSetupRefusal(error: unknown): Promise<boolean> {
  const [{ AlreadyRunning }, { DataDirError }] = await Promise.all([import('../service.js'), import('../queue/db.js')]);
  return error instanceof AlreadyRunning || error instanceof DataDirError;
}
