/**
 * An agent's proxy: its browser profile's egress, so that each account can reach its
 * provider from an address of its own. Stored as the URL the person gave; checked here
 * whenever it is set and again at each launch.
 */
export interface ProxySetting {
  scheme: 'http' | 'https' | 'socks5';
  host: string;
  port: number;
  /** `scheme://host:port`, as browsers take it. */
  server: string;
  username: string | null;
  password: string | null;
}

export const PROXY_SCHEMES = ['http', 'https', 'socks5'] as const;

/** The proxy text is not one we can use; the message says why, without repeating the password. */
export class BadProxy extends Error {}

// scheme://[user[:password]@]host:port[/]; an IPv6 host in brackets.
const SHAPE = /^([a-z0-9]+):\/\/(?:([^@/]*)@)?(\[[0-9a-f:.]+\]|[a-z0-9.-]+):(\d{1,5})\/?$/i;

export function parseProxy(text: string): ProxySetting {
  const trimmed = text.trim();
  const scheme = /^([a-z0-9]+):\/\//i.exec(trimmed)?.[1]?.toLowerCase();
  if (!scheme || !PROXY_SCHEMES.includes(scheme as ProxySetting['scheme'])) {
    throw new BadProxy('A proxy starts with http://, https:// or socks5://, e.g. socks5://127.0.0.1:1080.');
  }
  const m = SHAPE.exec(trimmed);
  if (!m) throw new BadProxy(`A proxy is ${scheme}://host:port, with user:password@ before the host if it needs them; nothing after the port.`);
  const [, , credentials, host, portText] = m as unknown as [string, string, string | undefined, string, string];
  const port = Number(portText);
  if (port < 1 || port > 65_535) throw new BadProxy('A proxy port is from 1 to 65535.');
  let username: string | null = null;
  let password: string | null = null;
  if (credentials !== undefined) {
    const at = credentials.indexOf(':');
    try {
      username = decodeURIComponent(at < 0 ? credentials : credentials.slice(0, at));
      password = at < 0 ? null : decodeURIComponent(credentials.slice(at + 1));
    } catch {
      throw new BadProxy('The user name or password of the proxy is not valid URL encoding (write % as %25).');
    }
    if (!username) throw new BadProxy('The proxy has an @ but no user name before it.');
    // Chromium speaks SOCKS5 without authentication only: the credentials would be dropped, and every page refused.
    if (scheme === 'socks5') throw new BadProxy('Chromium cannot log in to a SOCKS5 proxy: use one without a password, or an http:// proxy.');
  }
  const name = host.toLowerCase();
  return { scheme: scheme as ProxySetting['scheme'], host: name, port, server: `${scheme}://${name}:${port}`, username, password };
}

/** The proxy's URL as it is stored, its user name and password percent-encoded: parseProxy reads it back as it is. */
export function proxyUrl(p: ProxySetting): string {
  const credentials = p.username === null ? '' : `${encodeURIComponent(p.username)}${p.password === null ? '' : `:${encodeURIComponent(p.password)}`}@`;
  return `${p.scheme}://${credentials}${p.host}:${p.port}`;
}

/** The proxy as it may be shown or logged: the password never, the user name's first letter only. */
export function maskProxy(text: string): string {
  try {
    const p = parseProxy(text);
    return p.username === null ? p.server : `${p.scheme}://${p.username.slice(0, 1)}…${p.password === null ? '' : ':••••'}@${p.host}:${p.port}`;
  } catch {
    // Stored before a rule changed, or edited by hand: say what kind it is, nothing of what it holds.
    return 'a proxy that is not valid';
  }
}
