import { randomBytes, timingSafeEqual } from 'node:crypto';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
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

/** How long a server has to answer the challenge. */
const PROOF_MS = 10_000;
/** A proof is 43 characters of JSON: an answer longer than this is not one. */
const MAX_ANSWER = 1_024;

/** A connection on which no proof came: why, as ServerCheck says it. */
export class NotProven extends Error {
  constructor(
    message: string,
    readonly check: Exclude<ServerCheck, { kind: 'proven' | 'not_loopback' }>,
  ) {
    super(message);
  }
}

/**
 * Checks, before the admin token goes anywhere, that what listens at the address of a
 * server.json is the ChatBridge of `token`'s data dir: its address is on this machine's
 * loopback, and it answers a fresh nonce with an HMAC keyed by the token (serverProof).
 * The command line calls a running server only once it is proven, and then only over
 * connections proven in the same way (ProvenConnections).
 */
export async function checkServer(info: ServerInfo, token: string, timeoutMs = PROOF_MS): Promise<ServerCheck> {
  const reach = loopbackUrl(info.url);
  if (!reach) return { kind: 'not_loopback' };
  return proveServer(reach, info, token, timeoutMs);
}

/**
 * Whether what answers at `reach` proves it is the server of `info` (checkServer without the
 * loopback rule: the challenge carries nothing secret, so `serve` may ask it of any address
 * a server.json names before it believes that file).
 */
export async function proveServer(reach: string, info: ServerInfo, token: string, timeoutMs = PROOF_MS): Promise<ServerCheck> {
  try {
    (await provenConnection(reach, token, info.url, timeoutMs)).destroy();
    return { kind: 'proven', reach };
  } catch (error) {
    if (error instanceof NotProven) return error.check;
    throw error;
  }
}

/**
 * Opens a connection to `origin` and asks what answers there to prove, on that very
 * connection, that it holds `token` as the server of `url`: resolves with the connection,
 * kept alive for the requests that carry the token, or rejects with NotProven. A listener
 * that took the port after the server stopped never sees the token: it never proves, and
 * the token goes only on a connection that did.
 */
export function provenConnection(origin: string, token: string, url: string, timeoutMs = PROOF_MS): Promise<Socket> {
  const { hostname, port } = new URL(origin);
  const host = hostname.replace(/^\[|\]$/g, '');
  const nonce = randomBytes(24).toString('base64url');
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port: Number(port) || 80 });
    const fail = (error: NotProven) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(unreachable(`no answer in ${timeoutMs / 1000} s`, false)), timeoutMs);
    const req = request({ host, port, path: `/admin/v1/proof?nonce=${nonce}`, headers: { connection: 'keep-alive' }, createConnection: () => socket });
    req.once('error', (error: NodeJS.ErrnoException) => fail(unreachable(error.message, error.code === 'ECONNREFUSED')));
    req.once('response', (res) => {
      let answer = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        answer += chunk;
        if (answer.length > MAX_ANSWER) fail(noProof());
      });
      res.once('end', () => {
        if (res.statusCode !== 200 || !proves(answer, token, nonce, url)) return fail(noProof());
        // A server that is stopping says so, and closes the connection after this answer.
        if (res.headers.connection === 'close') return fail(unreachable('it is closing its connections', false));
        clearTimeout(timer);
        req.removeAllListeners('error');
        resolve(socket);
      });
    });
    req.end();
  });
}

const unreachable = (message: string, refused: boolean) => new NotProven(message, { kind: 'unreachable', message, refused });
const noProof = () => new NotProven("what answers there cannot prove it is this data dir's ChatBridge: nothing was sent to it", { kind: 'other' });

function proves(answer: string, token: string, nonce: string, url: string): boolean {
  let proof: unknown;
  try {
    proof = (JSON.parse(answer) as { proof?: unknown }).proof;
  } catch {
    return false;
  }
  const expected = Buffer.from(serverProof(token, nonce, url));
  const given = Buffer.from(String(proof));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The server's URL as reached from this machine, or null when it is not a loopback address. */
function loopbackUrl(url: string): string | null {
  const u = reachableUrl(url);
  return u && isLoopback(new URL(u).hostname.replace(/^\[|\]$/g, '')) ? u : null;
}

/** The server's URL as reached from this machine (one listening on every address through loopback), or null when it is not a URL. */
export function reachableUrl(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (host === '0.0.0.0') u.hostname = '127.0.0.1';
  else if (host === '::') u.hostname = '[::1]';
  return u.origin;
}
