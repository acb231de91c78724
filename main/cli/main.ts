import { VERSION } from '../core/package-root.js';
import { UsageError } from './args.js';
import { CLI } from '../core/cli-name.js';

// Each command loads what it needs when it runs: `ask` and `mcp`, clients of a running
// service, start in a tenth of the time without the service, the database and the browsers.
const account = () => import('./account.js');
const serve = async (args: string[]) => (await import('./serve.js')).serve(args);
const help = () => import('./help.js');

export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (command && (args.includes('--help') || args.includes('-h'))) {
    const { COMMAND_HELP, commandHelp } = await help();
    if (COMMAND_HELP[command]) return void process.stdout.write(commandHelp(command));
  }
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
      case 'agents':
        return await (await import('./agents.js')).agents(args);
      case 'keys':
        return await (await account()).keys(args);
      case 'accounts':
        return await (await import('./accounts.js')).accounts(args);
      case 'caps':
        return await (await account()).caps(args);
      case 'rotation':
        return await (await account()).rotation(args);
      case 'pause':
        return await (await account()).setPaused(true, args);
      case 'resume':
        return await (await account()).setPaused(false, args);
      case 'status':
        return await (await import('./status.js')).status(args);
      case 'sites':
        process.exitCode = await (await import('./sites.js')).sites(args);
        return;
      case 'admin-token':
        return await (await import('./admin-token.js')).adminTokenCommand(args);
      case 'dashboard':
        return await (await import('./admin-token.js')).dashboard(args);
      case 'ask':
        process.exitCode = await (await import('./ask.js')).ask(args);
        return;
      case 'mcp':
        return await (await import('./mcp.js')).mcp(args);
      case 'webhooks':
        return await (await import('./webhooks.js')).webhooks(args);
      case 'usage':
        return await (await import('./usage.js')).usage(args);
      case 'settings':
        return await (await import('./settings.js')).settings(args);
      case 'jobs':
        return await (await import('./jobs.js')).jobs(args);
      case 'migrate':
        return await (await import('./migrate.js')).migrate(args);
      case 'version':
      case '--version':
        process.stdout.write(`${VERSION}\n`);
        return;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write((await help()).HELP);
        return;
      default:
        throw new UsageError(`Unknown command "${command}". Run ${CLI} help.`);
    }
  } catch (error) {
    if (error instanceof UsageError || (await isSetupRefusal(error))) {
      process.stderr.write(`chatbridge: ${(error as Error).message}\n`);
      process.exit(2);
    }
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE' || e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL') {
      const forward = e.code === 'EADDRINUSE' ? `: another program uses that port; choose one with ${asStarted('--port N')}, or ${asStarted('--port 0')} for any free port` : '';
      process.stderr.write(`chatbridge: cannot listen: ${e.message}${forward}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/**
 * A flag as the person gives it to this run: after `--` when npm started it through one of
 * the package's scripts (`npm start -- --port N`), which pass on only what follows `--`.
 */
function asStarted(flag: string, env: NodeJS.ProcessEnv = process.env): string {
  const script = env.npm_lifecycle_event;
  if (!script || !/\bbin\/chatbridge\.js\b/.test(env.npm_lifecycle_script ?? '')) return flag;
  return `${script === 'start' ? 'npm start' : `npm run ${script}`} -- ${flag}`;
}

/** A data dir already served or unusable, a database unreachable: told in one line like a usage error. */
async function isSetupRefusal(error: unknown): Promise<boolean> {
  const [{ AlreadyRunning }, { StorageRefused }] = await Promise.all([import('../service/already-running.js'), import('../storage/storage.js')]);
  return error instanceof AlreadyRunning || error instanceof StorageRefused;
}
