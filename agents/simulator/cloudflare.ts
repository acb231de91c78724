/**
 * Cloudflare in front of a simulated site, as the live sites have it in 2026
 * (research/providers-live-2026.md, "Cross-provider risks"; saved challenge pages of
 * chatgpt.com, 2026-04):
 *
 * - the managed-challenge interstitial: a 403 page titled "Just a moment...", nearly
 *   empty (`.main-wrapper` > `.main-content` with a `<noscript>`), whose inline script sets
 *   `window._cf_chl_opt` and loads `/cdn-cgi/challenge-platform/h/b/orchestrate/…`, which
 *   draws the heading, "Verify you are human…", and the Turnstile widget: an iframe inside
 *   a CLOSED shadow root, so `iframe[src*="challenges.cloudflare.com"]` finds nothing.
 *   Element ids other than the noscript's are random per page, as on the live pages;
 * - on normal pages, what must not be taken for a challenge: the bot-detection snippet
 *   Cloudflare's edge adds to every HTML page (a hidden 1px iframe loading
 *   `/cdn-cgi/challenge-platform/scripts/jsd/main.js`), and an invisible Turnstile widget
 *   (again in a closed shadow root) such as sites render to vouch for their API calls.
 *
 * Nothing here reaches Cloudflare: the widget frames carry the real address in `src` but
 * are drawn from `srcdoc`, which a browser loads instead.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';

const ORCHESTRATE = '/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1';
const JSD = '/cdn-cgi/challenge-platform/scripts/jsd/main.js';
const WIDGET_SRC = 'https://challenges.cloudflare.com/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2/av0/rcv/0x4AAAAAAADnPIDROrmt1Wwj';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const token = () => `${randomBytes(32).toString('base64url')}-${Math.floor(Date.now() / 1000)}-1.0.1.1`;

/**
 * The bare "Verifying…" interstitial headed browsers sit on for seconds (research
 * 2026-11-26): a title and a line, none of Cloudflare's scripts or widgets in it, no
 * composer. Only its title tells what it is.
 */
export function verifyingPage(): string {
  return '<!DOCTYPE html><html lang="en-US"><head><title>Verifying...</title><meta charset="utf-8"></head><body><main><p>Verifying…</p></main></body></html>';
}

/** The interstitial for a request to `path` on `host`: what Cloudflare answers instead of the page. */
export function challengePage(host: string, path: string): string {
  const ray = hex(8);
  const opt =
    `{cvId: '3',cZone: ${JSON.stringify(host)},cType: 'managed',cRay: '${ray}',cH: '${token()}',` +
    `cUPMDTk: ${JSON.stringify(`${path}?__cf_chl_tk=${token()}`)},cFPWv: 'b',cITimeS: '${Math.floor(Date.now() / 1000)}',` +
    `cTplC:0,cTplV:5,cTplB: '0',fa: ${JSON.stringify(`${path}?__cf_chl_f_tk=${token()}`)},md: '${token()}'}`;
  return (
    '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>' +
    '<meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta http-equiv="X-UA-Compatible" content="IE=Edge">' +
    '<meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<style>${CHALLENGE_STYLE}</style><meta http-equiv="refresh" content="360"></head><body>` +
    '<div class="main-wrapper" role="main"><div class="main-content"><noscript><div class="h2">' +
    '<span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></noscript></div></div>' +
    `<script>(function(){window._cf_chl_opt = ${opt};var a = document.createElement('script');a.src = '${ORCHESTRATE}?ray=${ray}';` +
    `var ogU = location.pathname + location.search + location.hash;` +
    `history.replaceState(null, null, ${JSON.stringify(`${path}?__cf_chl_rt_tk=${token()}`)});` +
    `a.onload = function() {history.replaceState(null, null, ogU);};` +
    `document.getElementsByTagName('head')[0].appendChild(a);}());</script></body></html>`
  );
}

const CHALLENGE_STYLE =
  '*{box-sizing:border-box;margin:0;padding:0}html{line-height:1.15;color:#313131;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}' +
  'body{display:flex;flex-direction:column;height:100vh;min-height:100vh}.main-content{margin:8rem auto;padding-left:1.5rem;max-width:60rem}' +
  '.h1{font-size:2.5rem;font-weight:500;line-height:3.75rem}.h2{font-size:1.5rem;font-weight:500;line-height:2.25rem}' +
  '.spacer{margin:2rem 0}.spacer-top{margin-top:2rem}.spacer-bottom{margin-bottom:2rem}.footer{font-size:.75rem;margin:0 auto;max-width:60rem;padding:0 1.5rem 1rem}';

/**
 * Draws the challenge into the page (what Cloudflare's orchestrator does): the zone's
 * name, the prompt, the Turnstile widget in a closed shadow root, the footer with the Ray
 * ID. Ticking the widget's box is the person solving it: the page loads again.
 */
function orchestrateScript(ray: string): string {
  const widget = widgetFrame('normal', 'width: 300px; height: 65px;', CHECKBOX_DOC);
  return `(function(){
  var id = function(){ return Math.random().toString(36).slice(2, 7); };
  var host = location.host;
  var main = document.querySelector('.main-content');
  var h1 = document.createElement('h1'); h1.className = 'zone-name-title h1'; h1.textContent = host;
  var p = document.createElement('p'); p.id = id(); p.className = 'h2 spacer-bottom'; p.textContent = 'Verify you are human by completing the action below.';
  var slot = document.createElement('div'); slot.id = id(); slot.style.display = 'grid';
  var outer = document.createElement('div'); var shadowHost = document.createElement('div');
  outer.appendChild(shadowHost); slot.appendChild(outer);
  var root = shadowHost.attachShadow({ mode: 'closed' });
  root.innerHTML = ${JSON.stringify(widget)};
  var msg = document.createElement('div'); msg.id = id(); msg.className = 'core-msg spacer spacer-top';
  msg.textContent = host + ' needs to review the security of your connection before proceeding.';
  main.append(h1, p, slot, msg);
  var footer = document.createElement('div'); footer.className = 'footer'; footer.setAttribute('role', 'contentinfo');
  footer.innerHTML = '<div class="footer-inner"><div class="clearfix diagnostic-wrapper"><div class="ray-id">Ray ID: <code>${ray}</code></div></div>' +
    '<div class="text-center" id="footer-text">Performance &amp; security by <a rel="noopener noreferrer" href="https://www.cloudflare.com?utm_source=challenge&amp;utm_campaign=m" target="_blank">Cloudflare</a></div></div>';
  document.body.appendChild(footer);
  window.addEventListener('message', function(event){ if (event.data === 'cf-chl-solved') location.reload(); });
}());`;
}

const CHECKBOX_DOC =
  '<!doctype html><body style="margin:0;font:14px system-ui;border:1px solid #e0e0e0;background:#fafafa;height:63px;display:flex;align-items:center;justify-content:space-between;padding:0 12px">' +
  '<label style="display:flex;gap:8px;align-items:center"><input type="checkbox" onclick="parent.postMessage(\'cf-chl-solved\', \'*\')"><span>Verify you are human</span></label>' +
  '<span style="font-size:10px;color:#666">CLOUDFLARE</span></body>';

/** Turnstile's widget: its iframe, and the response field a form would submit. */
function widgetFrame(size: 'normal' | 'invisible', style: string, doc: string): string {
  const widget = `cf-chl-widget-${hex(3)}`;
  return (
    `<iframe src="${WIDGET_SRC}/${size}/auto/" srcdoc="${doc.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}" ` +
    `allow="cross-origin-isolated; fullscreen; autoplay" sandbox="allow-same-origin allow-scripts allow-popups" id="${widget}" tabindex="0" ` +
    `title="Widget containing a Cloudflare security challenge" style="border: none; overflow: hidden; ${style}"></iframe>` +
    `<input type="hidden" name="cf-turnstile-response" id="${widget}_response" value="${token()}">`
  );
}

/**
 * What a normal page carries when Cloudflare guards the site: the edge's bot-detection
 * snippet (as Cloudflare injects it before `</body>`) and an invisible Turnstile widget.
 */
export function protectedPageScripts(): string {
  const params = `window.__CF$cv$params={r:'${hex(8)}',t:'${Buffer.from(String(Date.now())).toString('base64')}'};`;
  const jsd =
    `(function(){function c(){var b=a.contentDocument||a.contentWindow.document;if(b){var d=b.createElement('script');` +
    `d.innerHTML=${JSON.stringify(`${params}var a=document.createElement('script');a.src='${JSD}';document.getElementsByTagName('head')[0].appendChild(a);`)};` +
    `b.getElementsByTagName('head')[0].appendChild(d)}}if(document.body){var a=document.createElement('iframe');a.height=1;a.width=1;` +
    `a.style.position='absolute';a.style.top=0;a.style.left=0;a.style.border='none';a.style.visibility='hidden';document.body.appendChild(a);` +
    `if('loading'!==document.readyState)c();else document.addEventListener('DOMContentLoaded',c)}})();`;
  const turnstile =
    `(function(){var box=document.createElement('div');box.className='cf-turnstile';box.style.cssText='position:fixed;right:0;bottom:0';` +
    `document.body.appendChild(box);box.attachShadow({mode:'closed'}).innerHTML=${JSON.stringify(widgetFrame('invisible', 'width: 0px; height: 0px; display: none;', '<!doctype html><body></body>'))};})();`;
  return `<script>${jsd}</script><script>${turnstile}</script>`;
}

/** Serves Cloudflare's own scripts under `/cdn-cgi/`; false when `path` is not one of them. */
export function serveCloudflare(path: string, url: URL, res: http.ServerResponse): boolean {
  if (!path.startsWith('/cdn-cgi/challenge-platform/')) return false;
  const ray = url.searchParams.get('ray') ?? '';
  const body = path === ORCHESTRATE ? orchestrateScript(/^[0-9a-f]{16}$/.test(ray) ? ray : hex(8)) : path === JSD ? '/* bot detection: nothing to see */' : null;
  if (body === null) {
    res.writeHead(404);
    res.end();
    return true;
  }
  res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
  return true;
}
