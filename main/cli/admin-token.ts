import { resolveDataDir } from '../core/data-dir.js';
import { adminToken, rotateAdminToken } from '../core/runtime-files.js';
import { parse, UsageError } from './args.js';
import { notRunning, runningServer, serverOrSimulation } from './server-client.js';
import { CLI } from '../core/cli-name.js';
import type { ProfileName } from '../core/profile-name.js';

/**
 * `chatbridge admin-token [--rotate]`: the dashboard link, or a new token. A running server
 * is asked to rotate (it refuses the old token from then on and ends the open dashboards'
 * streams, which then ask for the new link); otherwise the file is replaced.
 */
export async function adminTokenCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { 'data-dir': { type: 'string' }, rotate: { type: 'boolean' } });
  const dataDir = resolveDataDir(values['data-dir']);
  if (values.rotate) {
    const server = await runningServer(dataDir);
    if (server) {
      const res = await server.call('POST', '/admin/v1/admin-token/rotate');
      if (res.status !== 204) throw new UsageError(`ChatBridge at ${server.url} refused the rotation (HTTP ${res.status}).`);
    } else {
      rotateAdminToken(dataDir);
    }
    process.stdout.write('New admin token: the old dashboard link no longer works; open dashboards ask for the new one.\n');
    if (!server) return void process.stdout.write(`ChatBridge is not running for ${dataDir}. ${START}\n`);
  }
  await printDashboardLink(dataDir);
}

/**
 * `chatbridge dashboard`: the dashboard link, signed in, where `serve` does not print it (its
 * output is not a terminal, or the profile is hosted: the link holds the admin token).
 */
export async function dashboard(args: string[]): Promise<void> {
  const { values } = parse(args, { 'data-dir': { type: 'string' } });
  await printDashboardLink(resolveDataDir(values['data-dir']));
}

/**
 * Whether `serve` prints the dashboard link: it holds the admin token, which is the whole
 * service, so only to a person at a terminal, never to a journal, a container log or a
 * file, and never in the hosted profile (an operator's service, whose output is a log).
 */
export function printsDashboardLink(stdout: { isTTY?: boolean }, profile: ProfileName): boolean {
  return stdout.isTTY === true && profile !== 'hosted';
}

const START = `Start it (${CLI} serve), then run this again.`;

/**
 * The link of the data dir's server, else of the simulation running beside it (as status
 * finds it); with neither there is no link to give: a usage error.
 */
async function printDashboardLink(dataDir: string): Promise<void> {
  const server = await serverOrSimulation(dataDir);
  if (!server) throw notRunning(dataDir, START);
  if (server.dataDir !== dataDir) process.stderr.write(`chatbridge: the simulation (serve --simulate); for other commands: --data-dir ${server.dataDir}\n`);
  process.stdout.write(`dashboard: ${server.url}/#token=${adminToken(server.dataDir)}\n`);
}
