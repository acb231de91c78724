/**
 * The admin token arrives in the link `chatbridge serve` prints (`/#token=…`), or after the
 * page to open in the links of the command line (`/#/agents/agt_…/login&token=…`). A
 * fragment never reaches the server or its logs; the page keeps the token for this tab only
 * and takes it out of the address bar so it is not left in history or on screen; the page
 * part stays.
 */
const KEY = 'chatbridge.admin-token';

export function takeToken(win: Window = window): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(win.location.hash);
  if (match) {
    const token = decodeURIComponent(match[1]!);
    win.sessionStorage.setItem(KEY, token);
    const route = win.location.hash.replace(match[0], '').replace(/^#/, '');
    win.history.replaceState(null, '', win.location.pathname + win.location.search + (route ? `#${route}` : ''));
    return token;
  }
  return win.sessionStorage.getItem(KEY);
}

export function forgetToken(win: Window = window): void {
  win.sessionStorage.removeItem(KEY);
}
