import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Well-known install paths of Chrome, Chromium and Edge, most preferred first. */
function candidates(env: NodeJS.ProcessEnv): string[] {
  switch (process.platform) {
    case 'darwin':
      return [
        '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
        '/Applications/Chromium.app/Contents/MacOS/Chromium',
        '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
      ];
    case 'win32': {
      const roots = [env.PROGRAMFILES, env['PROGRAMFILES(X86)'], env.LOCALAPPDATA].filter(Boolean) as string[];
      return roots.flatMap((r) => [
        join(r, 'Google', 'Chrome', 'Application', 'chrome.exe'),
        join(r, 'Chromium', 'Application', 'chrome.exe'),
        join(r, 'Microsoft', 'Edge', 'Application', 'msedge.exe'),
      ]);
    }
    default:
      return [
        '/usr/bin/google-chrome',
        '/usr/bin/google-chrome-stable',
        '/usr/bin/chromium',
        '/usr/bin/chromium-browser',
        '/snap/bin/chromium',
        '/usr/bin/microsoft-edge',
      ];
  }
}

export class NoBrowserFound extends Error {}

/** CHATBRIDGE_BROWSER if set, else the first installed Chrome, Chromium or Edge. */
export function findBrowser(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CHATBRIDGE_BROWSER) {
    if (!existsSync(env.CHATBRIDGE_BROWSER)) throw new NoBrowserFound(`CHATBRIDGE_BROWSER points to ${env.CHATBRIDGE_BROWSER}, which does not exist.`);
    return env.CHATBRIDGE_BROWSER;
  }
  const found = candidates(env).find((p) => existsSync(p));
  if (!found) {
    throw new NoBrowserFound(
      'No Chrome, Chromium or Edge found. Install one (on Debian: apt-get install chromium) or set CHATBRIDGE_BROWSER to its path.',
    );
  }
  return found;
}
