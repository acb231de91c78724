import { resolveDataDir } from '../core/data-dir.js';
import { adminToken, rotateAdminToken } from '../core/runtime-files.js';
import { parse, UsageError } from './args.js';
import { notRunning, runningServer, serverOrSimulation } from './server-client.js';
import { CLI } from '../core/cli-name.js';

/**
 * `chatbridge admin-token [--rotate]`: the dashboard link, or a new token. A running server
 * is asked to rotate (it refuses the old token from then on and ends the open dashboards'
 * streams, which then ask for the new link); otherwise the file is replaced. The link is of
 * the data dir's server, else of the simulation running beside it; with neither there is no
 * link to give: a usage error.
 */
export async function adminTokenCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { 'data-dir': { type: 'string' }, rotate: { type: 'boolean' } });
  const dataDir = resolveDataDir(values['data-dir']);
  const start = `Start it (${CLI} serve): it prints the dashboard link.`;
  if (values.rotate) {
    const server = await runningServer(dataDir);
    if (server) {
      const res = await server.call('POST', '/admin/v1/admin-token/rotate');
      if (res.status !== 204) throw new UsageError(`ChatBridge at ${server.url} refused the rotation (HTTP ${res.status}).`);
    } else {
      rotateAdminToken(dataDir);
    }
    process.stdout.write('New admin token: the old dashboard link no longer works; open dashboards ask for the new one.\n');
    if (!server) return void process.stdout.write(`ChatBridge is not running for ${dataDir}. ${start}\n`);
  }
  // The link is what was asked for: the server's, else the simulation's beside it (as status finds it).
  const server = await serverOrSimulation(dataDir);
  if (!server) throw notRunning(dataDir, start);
  if (server.dataDir !== dataDir) process.stderr.write(`chatbridge: the simulation (serve --simulate); for other commands: --data-dir ${server.dataDir}\n`);
  process.stdout.write(`dashboard: ${server.url}/#token=${adminToken(server.dataDir)}\n`);
}
