import { isIP } from 'node:net';

/** Where `serve` and the desktop app listen unless told otherwise: a fixed port, so scripts know where to call. */
export const DEFAULT_PORT = 8787;

/** True for "localhost" and the loopback addresses (127.0.0.0/8, ::1, and 127.x mapped in IPv6). */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || /^::ffff:127\./i.test(host);
  return false;
}
