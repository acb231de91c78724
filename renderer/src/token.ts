/**
 * The admin token arrives in the link `chatbridge serve` prints (`/#token=…`). A fragment
 * never reaches the server or its logs; the page keeps the token for this tab only and
 * takes it out of the address bar so it is not left in history or on screen.
 */
const KEY = 'chatbridge.admin-token';

export function takeToken(win: Window = window): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(win.location.hash);
  if (match) {
    const token = decodeURIComponent(match[1]!);
    win.sessionStorage.setItem(KEY, token);
    win.history.replaceState(null, '', win.location.pathname + win.location.search);
    return token;
  }
  return win.sessionStorage.getItem(KEY);
}

export function forgetToken(win: Window = window): void {
  win.sessionStorage.removeItem(KEY);
}
