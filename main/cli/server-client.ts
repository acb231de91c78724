import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isLoopback } from '../core/loopback.js';
import { adminToken, readServerInfo } from '../core/runtime-files.js';
import { serverProof } from '../keys/admin-token.js';
import { UsageError } from './args.js';

/** The running server of a data dir, proven to be ours, and a way to call it with the admin token. */
export interface RunningServer {
  url: string;
  /** `body`, if given, goes as JSON; the call gives up after `timeoutMs`. */
  call(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<Response>;
  /** The dashboard at a page (`/agents/add`), signed in through the link's fragment. */
  dashboardLink(route: string): string;
}

/**
 * Finds the server of `dataDir` and checks, before the admin token goes anywhere, that
 * (1) the process named in server.json is alive, (2) its address is on this machine's
 * loopback, and (3) what answers there proves it holds this data dir's admin token (an
 * HMAC of a fresh nonce and its own address, see serverProof). Every command that calls
 * the running server goes through here.
 */
export async function runningServer(dataDir: string): Promise<RunningServer | null> {
  const info = readServerInfo(dataDir);
  if (!info) return null;
  const reach = loopbackUrl(info.url);
  if (!reach) {
    throw new UsageError(`server.json in ${dataDir} points at ${info.url}, which is not this machine's loopback: the admin token is not sent there.`);
  }
  const token = adminToken(dataDir);
  const nonce = randomBytes(24).toString('base64url');
  let proof: string;
  try {
    const res = await fetch(`${reach}/admin/v1/proof?nonce=${nonce}`, { signal: AbortSignal.timeout(10_000) });
    proof = res.ok ? String(((await res.json()) as { proof?: unknown }).proof) : '';
  } catch (error) {
    throw new UsageError(`Could not reach ChatBridge at ${info.url}: ${(error as Error).message}`);
  }
  const expected = Buffer.from(serverProof(token, nonce, info.url));
  const given = Buffer.from(proof);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new UsageError(
      `What answers at ${info.url} is not the ChatBridge of ${dataDir} (it cannot prove it holds this data dir's admin token): the token is not sent there.`,
    );
  }
  return {
    url: info.url,
    call: (method, path, body, timeoutMs = 30_000) =>
      fetch(`${reach}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      }),
    dashboardLink: (route) => `${info.url}/#${route}&token=${token}`,
  };
}

/** The server's URL as reached from this machine, or null when it is not a loopback address. */
function loopbackUrl(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const host = u.hostname.replace(/^\[|\]$/g, '');
  // A server listening on every address is reached through loopback.
  if (host === '0.0.0.0') u.hostname = '127.0.0.1';
  else if (host === '::') u.hostname = '[::1]';
  else if (!isLoopback(host)) return null;
  return u.origin;
}
