import { readAdminToken, readServerInfo, removeServerInfo } from '../core/runtime-files.js';
import { proveServer, reachableUrl } from '../keys/server-proof.js';
import { AlreadyRunning } from './already-running.js';

/**
 * A second server on one data dir is refused, but only while the server a server.json names
 * proves it holds the data dir's admin token (the challenge carries nothing secret, so it is
 * asked at any address). Anything else makes the file stale, and it is removed with a word
 * (`onWarning`): a pid reused after a reboot or in a container (pid 1) is alive, but nothing
 * that is not the server can answer for it.
 */
export async function refuseIfServed(dataDir: string, onWarning: ((line: string) => void) | undefined): Promise<void> {
  const running = readServerInfo(dataDir);
  if (!running || running.pid === process.pid) return;
  const token = readAdminToken(dataDir);
  const reach = reachableUrl(running.url);
  const check = token && reach ? await proveServer(reach, running, token) : null;
  if (check?.kind === 'proven') throw new AlreadyRunning(`ChatBridge is already running on ${running.url} (pid ${running.pid}) with this data dir.`);
  removeServerInfo(dataDir, running.pid);
  const why = !check ? 'it names no server this data dir can check' : check.kind === 'unreachable' ? `nothing there answers (${check.message})` : 'what answers there is not this data dir\'s ChatBridge';
  onWarning?.(`a stale server.json (pid ${running.pid}, ${running.url}) was removed: ${why}.`);
}
