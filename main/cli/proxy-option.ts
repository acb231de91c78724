import { readFileSync } from 'node:fs';
import { BadProxy, parseProxy, proxyUrl, type ProxySetting } from '../core/proxy.js';
import { UsageError } from './args.js';

/** Where `agents set --proxy` takes the proxy's password from, when not from a file. */
export const PROXY_PASSWORD_VARIABLE = 'CHATBRIDGE_PROXY_PASSWORD';

/**
 * The proxy `agents set --proxy URL` stores. Its password never comes on the command line,
 * where every user of this machine sees it (ps) and the shell's history keeps it: a URL
 * carrying one is refused, and the password of a URL that names a user is read from
 * `--proxy-password-file FILE` (its first line), else from CHATBRIDGE_PROXY_PASSWORD, as
 * the database's comes from PGPASSWORD or ~/.pgpass. A URL with a user and neither is a
 * proxy that takes a user name alone.
 */
export function proxyOption(text: string, passwordFile: string | undefined, env: NodeJS.ProcessEnv): string {
  const proxy = parsed(text);
  if (proxy.password !== null) {
    throw new UsageError(
      `--proxy: a password on the command line is seen by every user of this machine (ps) and kept in your shell's history: give ${proxy.scheme}://USER@${proxy.host}:${proxy.port} and the password in a file (--proxy-password-file FILE) or in ${PROXY_PASSWORD_VARIABLE}.`,
    );
  }
  if (passwordFile !== undefined && proxy.username === null) {
    throw new UsageError(`--proxy-password-file: the proxy names no user; give ${proxy.scheme}://USER@${proxy.host}:${proxy.port}.`);
  }
  const password = passwordFile !== undefined ? readPassword(passwordFile) : proxy.username !== null ? env[PROXY_PASSWORD_VARIABLE] || null : null;
  return password === null ? proxyUrl(proxy) : proxyUrl(parsed(proxyUrl({ ...proxy, password })));
}

function parsed(text: string): ProxySetting {
  try {
    return parseProxy(text);
  } catch (error) {
    if (error instanceof BadProxy) throw new UsageError(`--proxy: ${error.message}`);
    throw error;
  }
}

/** A password file's first line (its line ending is not part of it). */
function readPassword(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--proxy-password-file: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  }
  const password = text.split(/\r?\n/, 1)[0]!;
  if (!password) throw new UsageError(`--proxy-password-file: the first line of ${file} is empty: it holds the proxy's password.`);
  return password;
}
