import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isLoopback } from '../core/loopback.js';
import type { ServerInfo } from '../core/runtime-files.js';
import { serverProof } from './admin-token.js';

/** What answers at the address a server.json names. */
export type ServerCheck =
  /** It proved it holds the data dir's admin token: the ChatBridge of that data dir. */
  | { kind: 'proven'; reach: string }
  /** The address is not this machine's loopback: nothing is sent there. */
  | { kind: 'not_loopback' }
  /** No answer: `refused` when nothing listens there (the server that wrote it is gone), else it did not answer in time. */
  | { kind: 'unreachable'; message: string; refused: boolean }
  /** Something answers but cannot prove it: another program, or another data dir's server. */
  | { kind: 'other' };

/**
 * Checks, before the admin token goes anywhere, that what listens at the address of a
 * server.json is the ChatBridge of `token`'s data dir: its address is on this machine's
 * loopback, and it answers a fresh nonce with an HMAC keyed by the token (serverProof).
 * The command line calls a running server only once it is proven; `serve` refuses a data
 * dir only while its server is proven, so a stale file whose pid now belongs to another
 * process does not keep it out.
 */
export async function checkServer(info: ServerInfo, token: string, timeoutMs = 10_000): Promise<ServerCheck> {
  const reach = loopbackUrl(info.url);
  if (!reach) return { kind: 'not_loopback' };
  const nonce = randomBytes(24).toString('base64url');
  let proof: string;
  try {
    const res = await fetch(`${reach}/admin/v1/proof?nonce=${nonce}`, { signal: AbortSignal.timeout(timeoutMs) });
    proof = res.ok ? String(((await res.json().catch(() => ({}))) as { proof?: unknown }).proof) : '';
  } catch (error) {
    const refused = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code === 'ECONNREFUSED';
    return { kind: 'unreachable', message: (error as Error).message, refused };
  }
  const expected = Buffer.from(serverProof(token, nonce, info.url));
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected) ? { kind: 'proven', reach } : { kind: 'other' };
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
