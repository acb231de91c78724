import { resolveDataDir } from '../core/data-dir.js';
import { adminToken, rotateAdminToken } from '../core/runtime-files.js';
import { parse, UsageError } from './args.js';
import { runningServer } from './server-client.js';

/**
 * `chatbridge admin-token [--rotate]`: the dashboard link, or a new token. A running server
 * is asked to rotate (it refuses the old token from then on and ends the open dashboards'
 * streams, which then ask for the new link); otherwise the file is replaced.
 */
export async function adminTokenCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { 'data-dir': { type: 'string' }, rotate: { type: 'boolean' } });
  const dataDir = resolveDataDir(values['data-dir']);
  const server = await runningServer(dataDir);
  if (values.rotate) {
    if (server) {
      const res = await server.call('POST', '/admin/v1/admin-token/rotate');
      if (res.status !== 204) throw new UsageError(`ChatBridge at ${server.url} refused the rotation (HTTP ${res.status}).`);
    } else {
      rotateAdminToken(dataDir);
    }
    process.stdout.write('New admin token: the old dashboard link no longer works; open dashboards ask for the new one.\n');
  }
  process.stdout.write(
    server
      ? `dashboard: ${server.url}/#token=${adminToken(dataDir)}\n`
      : 'ChatBridge is not running: chatbridge serve prints the dashboard link when it starts.\n',
  );
}
