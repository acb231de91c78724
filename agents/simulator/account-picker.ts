/**
 * ChatGPT's "Welcome back / Choose an account to continue" page (research 2026-11-26): after
 * a challenge or a cookie refresh, the saved account as a `div[role=button]` card, with a
 * visible "Log in" beside it. One click on the card restores the session. Invented markup
 * around the card; the site's log counts the clicks.
 */
export function accountPickerPage(title: string, newChat: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main>` +
    '<h1>Welcome back</h1><p>Choose an account to continue</p>' +
    `<div role="button" tabindex="0" style="border:1px solid #ccc;padding:12px;cursor:pointer" ` +
    `onclick="fetch('/__sim/pick',{method:'POST'}).then(()=>location.assign(${JSON.stringify(newChat).replace(/"/g, '&quot;')}))">` +
    '<span>Simulated Agent</span> <span>agent@example.test</span></div>' +
    '<button type="button" data-testid="login-button">Log in</button>' +
    '</main></body></html>'
  );
}
