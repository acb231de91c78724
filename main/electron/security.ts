/**
 * The security rules of the desktop app as data and small predicates, so they are tested
 * without Electron: what the dashboard window and the agent views are allowed to be.
 */

/** The dashboard is served from this origin (a custom protocol, never file://). */
export const APP_SCHEME = 'app';
export const APP_HOST = 'dashboard';
export const DASHBOARD_URL = `${APP_SCHEME}://${APP_HOST}/`;

/**
 * Scripts and styles from the app only; data goes to the app origin (the admin API behind it).
 * Images may also be `blob:`: a diagnostic screenshot is fetched with the token (a plain
 * link could not send it) and shown from an object URL the page made itself.
 */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** True only for a page of the dashboard's own origin (parsed, never compared by prefix). */
export function isDashboardUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST;
  } catch {
    return false;
  }
}

/**
 * The dashboard window: isolated, sandboxed, no Node, only the typed preload, and in a
 * packaged app no developer tools (they would show the admin token).
 */
export function dashboardPreferences(preload: string, packaged = true) {
  return {
    preload,
    devTools: !packaged,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    webSecurity: true,
    webviewTag: false,
    spellcheck: false,
  } as const;
}

/**
 * An agent's view: the provider's site in the agent's own persistent partition, with no
 * preload (nothing of the app is reachable from a provider's page), and no throttling so
 * an agent keeps working while nobody watches.
 */
export function agentViewPreferences(agentId: string) {
  return {
    partition: agentPartition(agentId),
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    webSecurity: true,
    webviewTag: false,
    backgroundThrottling: false,
    devTools: false,
  } as const;
}

export function agentPartition(agentId: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(agentId)) throw new Error(`Not an agent id: ${agentId}`);
  return `persist:agent-${agentId}`;
}
